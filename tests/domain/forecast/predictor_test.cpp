#include "domain/forecast/predictor.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/deterministic_noise.hpp"

using namespace capstan;

namespace {

PredictorConfig small_config() {
  PredictorConfig c;
  c.seasonal.period_steps = 24;
  c.arima.min_points = 30;
  return c;
}

std::vector<double> mixed_series(int n) {
  capstan::testing::LcgNoise noise(3);
  std::vector<double> y;
  for (int t = 0; t < n; ++t) {
    y.push_back(50 + 0.3 * t + 10 * std::sin(6.283185307179586 * t / 24) + noise.gaussian());
  }
  return y;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

PredictorState round_trip(const PredictorState& s) {
  const std::string text = nlohmann::json(s).dump();
  auto back = predictor_from_json(nlohmann::json::parse(text));
  REQUIRE(back.ok());
  return *back;
}

}  // namespace

TEST_CASE("Predictor kinds parse from and print to their names") {
  for (PredictorKind k : all_predictor_kinds()) {
    PredictorKind parsed{};
    REQUIRE(parse_predictor_kind(to_string(k), parsed));
    CHECK(parsed == k);
    auto made = make_predictor(k, small_config());
    REQUIRE(made.ok());
    CHECK(kind_of(*made) == k);
  }
  PredictorKind unused{};
  CHECK_FALSE(parse_predictor_kind("prophet", unused));
}

TEST_CASE("Every predictor answers as the constant predictor after one observation") {
  for (PredictorKind k : all_predictor_kinds()) {
    INFO(to_string(k));
    auto s = make_predictor(k, small_config());
    REQUIRE(s.ok());
    CHECK(forecast(*s, 4) == 0.0);
    const PredictorState one = observe(*s, 42.5);
    CHECK(observation_count(one) == 1);
    CHECK(forecast(one, 4) == 42.5);
  }
}

TEST_CASE("A JSON round trip gives bit-identical forecasts for every predictor") {
  const std::vector<double> series = mixed_series(150);
  for (PredictorKind k : all_predictor_kinds()) {
    INFO(to_string(k));
    auto made = make_predictor(k, small_config());
    REQUIRE(made.ok());
    PredictorState live = warm_start(*made, series);
    PredictorState restored = round_trip(live);
    CHECK(kind_of(restored) == k);
    for (double h : {0.0, 1.0, 2.5, 4.0, 40.0}) {
      CHECK(same_bits(forecast(live, h), forecast(restored, h)));
    }
    // And they stay identical as more data arrives.
    for (double v : {61.0, 64.5, 58.25, 70.0, 66.0, 63.0, 80.0, 79.0, 77.5, 76.0, 75.0, 74.0,
                     73.0, 72.0, 71.0, 70.0}) {
      live = observe(live, v);
      restored = observe(restored, v);
    }
    CHECK(same_bits(forecast(live, 4), forecast(restored, 4)));
    CHECK(nlohmann::json(live).dump() == nlohmann::json(restored).dump());
  }
}

TEST_CASE("Warm start is the fold of observe over the series") {
  const std::vector<double> series = mixed_series(40);
  auto made = make_predictor(PredictorKind::kKalman, small_config());
  REQUIRE(made.ok());
  PredictorState folded = *made;
  for (double v : series) folded = observe(folded, v);
  CHECK(same_bits(forecast(warm_start(*made, series), 3), forecast(folded, 3)));
}

TEST_CASE("Malformed predictor JSON is an error value, not an exception") {
  CHECK_FALSE(predictor_from_json(nlohmann::json{{"kind", "prophet"}, {"state", {}}}).ok());
  CHECK_FALSE(predictor_from_json(nlohmann::json{{"kind", "holt"}, {"state", {{"level", 1}}}}).ok());
  CHECK_FALSE(predictor_from_json(nlohmann::json::array()).ok());
}

TEST_CASE("A bad config for the chosen kind is an error naming the field") {
  PredictorConfig c;
  c.holt.alpha = 2;
  auto bad = make_predictor(PredictorKind::kHolt, c);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("holt.alpha") != std::string::npos);
  CHECK(make_predictor(PredictorKind::kConstant, c).ok());  // not its part of the config
}
