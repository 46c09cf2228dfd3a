#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/json.hpp"

namespace capstan {

TEST_CASE("a pod's per-request ITL histogram survives a JSON round trip") {
  PodMetrics p;
  p.pod = "h100-0";
  p.arrival_rate_rps = 7.5;
  p.request_itl = {{50, 75, 100}, {10, 180, 199}, 200, 13500};
  const PodMetrics back = nlohmann::json(p).get<PodMetrics>();
  CHECK(back.request_itl == p.request_itl);
  CHECK(back.arrival_rate_rps == 7.5);
  // A pod without one writes none and reads back empty.
  PodMetrics bare;
  CHECK_FALSE(nlohmann::json(bare).contains("request_itl"));
  CHECK(nlohmann::json(bare).get<PodMetrics>().request_itl.empty());
}

TEST_CASE("a malformed per-request ITL histogram is refused naming the field") {
  auto parse = [](const char* text) { return nlohmann::json::parse(text).get<PodMetrics>(); };
  CHECK_THROWS_WITH(parse(R"({"request_itl":{"upper_bounds_ms":[50,75],"cumulative":[1],"count":2}})"),
                    Catch::Contains("request_itl.cumulative must have one count per upper bound"));
  CHECK_THROWS_WITH(parse(R"({"request_itl":{"upper_bounds_ms":[75,50],"cumulative":[1,2],"count":2}})"),
                    Catch::Contains("request_itl.upper_bounds_ms must increase"));
  CHECK_THROWS_WITH(parse(R"({"request_itl":{"upper_bounds_ms":[50,75],"cumulative":[2,1],"count":2}})"),
                    Catch::Contains("request_itl.cumulative must not decrease"));
  CHECK_THROWS_WITH(parse(R"({"request_itl":{"upper_bounds_ms":[50],"cumulative":[3],"count":2}})"),
                    Catch::Contains("stay <= count"));
  CHECK_THROWS_WITH(parse(R"({"request_itl":{"upper_bounds_ms":[-1],"cumulative":[0],"count":2}})"),
                    Catch::Contains("upper_bounds_ms must hold finite numbers >= 0"));
  CHECK_THROWS_WITH(parse(R"({"request_itl":[1,2]})"), Catch::Contains("request_itl must be a JSON object"));
}

}  // namespace capstan
