#include "domain/forecast/kalman_predictor.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_data.hpp"

using namespace capstan;

namespace {

KalmanState fresh(int min_points = 5) {
  KalmanConfig c;
  c.min_points = min_points;
  auto s = make_kalman_state(c);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("Kalman answers as the constant predictor until min_points observations") {
  KalmanState s = fresh(5);
  CHECK(forecast(s, 3) == 0.0);
  for (double v : {10.0, 20.0, 30.0, 40.0}) {
    s = observe(s, v);
    CHECK_FALSE(warmed_up(s));
    CHECK(forecast(s, 3) == v);
  }
  s = observe(s, 50.0);
  CHECK(warmed_up(s));
  CHECK(forecast(s, 3) > 50.0);  // the filter has found the upward trend
}

TEST_CASE("Kalman recovers the slope of a linear series") {
  KalmanState s = fresh();
  for (int t = 0; t < 300; ++t) s = observe(s, 5.0 + 2.0 * t);
  CHECK(s.trend == Approx(2.0).epsilon(1e-6));
  CHECK(forecast(s, 10) == Approx(5.0 + 2.0 * 309).epsilon(1e-6));
}

TEST_CASE("Kalman keeps its covariance symmetric and positive") {
  KalmanState s = fresh();
  for (int t = 0; t < 100; ++t) s = observe(s, (t % 7) * 3.0);
  CHECK(s.p_level > 0);
  CHECK(s.p_trend > 0);
  CHECK(s.p_level * s.p_trend - s.p_cross * s.p_cross > 0);
}

TEST_CASE("Kalman rejects non-positive noise and min_points naming the field") {
  KalmanConfig c;
  c.r = 0;
  auto bad_r = make_kalman_state(c);
  REQUIRE_FALSE(bad_r.ok());
  CHECK(bad_r.error().message.find("kalman.r") != std::string::npos);
  c = KalmanConfig{};
  c.min_points = 0;
  auto bad_min = make_kalman_state(c);
  REQUIRE_FALSE(bad_min.ok());
  CHECK(bad_min.error().message.find("kalman.min_points") != std::string::npos);
}

TEST_CASE("Kalman reproduces Dynamo's predictor vectors A8-A15") {
  const nlohmann::json data = capstan::testing::load_json("dynamo-kalman-vectors.json");
  REQUIRE(data.at("cases").size() == 7);
  for (const auto& c : data.at("cases")) {
    INFO(c.at("id").get<std::string>());
    KalmanConfig config = c.at("config").get<KalmanConfig>();
    auto made = make_kalman_state(config);
    REQUIRE(made.ok());
    KalmanState s = made.value();
    const auto& series = c.at("series");
    const auto& expected = c.at("forecasts");
    REQUIRE(series.size() == expected.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
      s = observe(s, series[i].get<double>());
      const double want = expected[i].get<double>();
      INFO("after point " << i);
      if (c.contains("relative_tolerance")) {
        CHECK(forecast(s, 1) == Approx(want).epsilon(c.at("relative_tolerance").get<double>()));
      } else {
        CHECK(forecast(s, 1) == Approx(want).margin(c.at("tolerance").get<double>()));
      }
      CHECK(forecast(s, 1) == forecast(s, 1));  // A12: asking twice does not advance the filter
    }
  }
}
