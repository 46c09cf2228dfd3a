#include "domain/forecast/traffic_forecast.hpp"

#include <vector>

#include <catch2/catch.hpp>

using namespace capstan;

TEST_CASE("Rate and token lengths are forecast as independent series") {
  auto made = make_traffic_forecast({PredictorKind::kConstant, PredictorKind::kHolt});
  REQUIRE(made.ok());
  std::vector<TrafficSample> trace;
  for (int t = 0; t < 60; ++t) trace.push_back({10.0 + t, 512.0, 128.0 - t});
  const TrafficForecastState s = warm_start(*made, trace);
  const TrafficSample f = forecast(s, 4);
  CHECK(f.rate_rps > 69.0);              // rising
  CHECK(f.avg_input_tokens == Approx(512.0));
  CHECK(f.avg_output_tokens < 69.0);     // falling
  CHECK(selected_kind(s.rate_rps) == PredictorKind::kHolt);

  auto back = nlohmann::json::parse(nlohmann::json(s).dump()).get<TrafficForecastState>();
  const TrafficSample g = forecast(back, 4);
  CHECK(g.rate_rps == f.rate_rps);
  CHECK(g.avg_input_tokens == f.avg_input_tokens);
  CHECK(g.avg_output_tokens == f.avg_output_tokens);
}
