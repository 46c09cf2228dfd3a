#include "sim/mooncake_trace.hpp"

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

TEST_CASE("The Mooncake excerpt parses with its prefix hash ids") {
  MooncakeTrace trace(sim_data("mooncake_excerpt.jsonl"));
  const auto d = drain(trace);
  REQUIRE(d.error.empty());
  REQUIRE(d.requests.size() == 200);
  CHECK(d.requests[0].input_tokens == 40160);
  CHECK(d.requests[0].output_tokens == 6);
  CHECK(d.requests[0].hash_ids.size() == 79);
  CHECK(d.requests[0].hash_ids[0] == 0);
  for (std::size_t i = 1; i < d.requests.size(); ++i) CHECK(d.requests[i].arrival_s >= d.requests[i - 1].arrival_s);
}

TEST_CASE("Mooncake requests sharing a quantised timestamp are spread over the bucket") {
  const auto path = write_temp("mc_spread.jsonl",
                               "{\"timestamp\": 1000, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n"
                               "{\"timestamp\": 1000, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [2]}\n"
                               "{\"timestamp\": 1000, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [3]}\n"
                               "{\"timestamp\": 1000, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [4]}\n"
                               "{\"timestamp\": 2000, \"input_length\": 10, \"output_length\": 2}\n");
  MooncakeTrace trace(path, 1000.0);
  const auto d = drain(trace);
  REQUIRE(d.error.empty());
  REQUIRE(d.requests.size() == 5);
  CHECK(d.requests[0].arrival_s == Approx(1.0));
  CHECK(d.requests[1].arrival_s == Approx(1.25));
  CHECK(d.requests[3].arrival_s == Approx(1.75));
  CHECK(d.requests[3].hash_ids == std::vector<std::uint64_t>{4});
  CHECK(d.requests[4].arrival_s == Approx(2.0));
}

TEST_CASE("Malformed Mooncake rows are rejected with the file and line number") {
  const auto path = write_temp("mc_bad.jsonl",
                               "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
                               "{\"timestamp\": 5, \"input_length\": -3, \"output_length\": 2}\n");
  MooncakeTrace trace(path);
  const auto d = drain(trace);
  CHECK_THAT(d.error, Catch::Contains("mc_bad.jsonl: line 2") && Catch::Contains("input_length"));
  const auto path2 = write_temp("mc_json.jsonl", "{\"timestamp\": 0,\n");
  MooncakeTrace trace2(path2);
  CHECK_THAT(drain(trace2).error, Catch::Contains("line 1") && Catch::Contains("invalid JSON"));
}
