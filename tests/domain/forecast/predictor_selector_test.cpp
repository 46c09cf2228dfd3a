#include "domain/forecast/predictor_selector.hpp"

#include <vector>

#include <catch2/catch.hpp>

#include "domain/deterministic_noise.hpp"

using namespace capstan;

namespace {

SelectorState fresh(const std::vector<PredictorKind>& kinds) {
  PredictorConfig c;
  c.seasonal.period_steps = 24;
  auto s = make_selector(kinds, c);
  REQUIRE(s.ok());
  return *s;
}

SelectorState feed_trend(SelectorState s, int n) {
  capstan::testing::LcgNoise noise(17);
  for (int t = 0; t < n; ++t) s = observe(s, 20.0 + 1.5 * t + 0.5 * noise.gaussian());
  return s;
}

}  // namespace

TEST_CASE("The selector picks Holt over constant on a trend series") {
  const SelectorState s = feed_trend(fresh({PredictorKind::kConstant, PredictorKind::kHolt}), 100);
  CHECK(selected_kind(s) == PredictorKind::kHolt);
  CHECK(s.candidates[1].mean_abs_error < s.candidates[0].mean_abs_error);
  CHECK(forecast(s, 4) == forecast(s.candidates[1].predictor, 4));
}

TEST_CASE("Among all predictors the selector leaves constant on a trend series") {
  const SelectorState s = feed_trend(fresh(all_predictor_kinds()), 150);
  CHECK(selected_kind(s) != PredictorKind::kConstant);
  CHECK(forecast(s, 4) > 20.0 + 1.5 * 149);
}

TEST_CASE("Before any error is scored the selector uses its first candidate") {
  SelectorState s = fresh({PredictorKind::kConstant, PredictorKind::kHolt});
  CHECK(selected_index(s) == 0);
  s = observe(s, 10);
  CHECK(s.candidates[0].scored == 0);
  CHECK(selected_index(s) == 0);
  s = observe(s, 10);  // both forecast 10: a tie keeps the first
  CHECK(s.candidates[1].scored == 1);
  CHECK(selected_index(s) == 0);
}

TEST_CASE("The selector state round-trips through JSON with identical choices") {
  const SelectorState live = feed_trend(fresh(all_predictor_kinds()), 80);
  auto back = selector_from_json(nlohmann::json::parse(nlohmann::json(live).dump()));
  REQUIRE(back.ok());
  CHECK(selected_index(*back) == selected_index(live));
  CHECK(forecast(*back, 4) == forecast(live, 4));
  CHECK(nlohmann::json(observe(*back, 200)).dump() == nlohmann::json(observe(live, 200)).dump());
}

TEST_CASE("A selector without candidates or with a duplicate is rejected") {
  CHECK_FALSE(make_selector({}).ok());
  auto dup = make_selector({PredictorKind::kHolt, PredictorKind::kHolt});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message.find("holt") != std::string::npos);
  auto weight = make_selector({PredictorKind::kHolt}, {}, SelectorConfig{0});
  REQUIRE_FALSE(weight.ok());
  CHECK(weight.error().message.find("selector.error_weight") != std::string::npos);
}

TEST_CASE("The selector forecasts with a candidate only once it was scored as many times as asked") {
  // A clean rise of 1 a step: the Kalman trend is the one-step best from its sixth point,
  // judged on five. Asked for candidates judged on twelve, the selector answers with its
  // first until the trend has been scored twelve times.
  SelectorState s = fresh({PredictorKind::kConstant, PredictorKind::kKalman});
  for (int t = 0; t < 8; ++t) s = observe(s, 2.0 + t);
  REQUIRE(s.candidates[1].scored == 7);
  CHECK(selected_kind(s) == PredictorKind::kKalman);
  CHECK(forecast(s, 12) == Approx(21).epsilon(0.01));
  CHECK(selected_index(s, 12) == 0);
  CHECK(forecast(s, 12, 12) == 9);
  for (int t = 8; t < 13; ++t) s = observe(s, 2.0 + t);
  REQUIRE(s.candidates[1].scored == 12);
  CHECK(selected_kind(s, 12) == PredictorKind::kKalman);
  CHECK(forecast(s, 12, 12) == forecast(s, 12));
}
