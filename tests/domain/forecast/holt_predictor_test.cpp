#include "domain/forecast/holt_predictor.hpp"

#include <catch2/catch.hpp>

#include "domain/forecast/forecast_horizon.hpp"

using namespace capstan;

namespace {

HoltState fresh(double alpha = 0.3) {
  auto s = make_holt_state(HoltConfig::with_alpha(alpha));
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("Holt pairs beta with half of alpha, as Inferscale does") {
  const HoltState s = fresh(0.3);
  CHECK(s.config.alpha == 0.3);
  CHECK(s.config.beta == 0.15);
}

TEST_CASE("Holt forecasts 0 before its first observation") {
  CHECK(forecast(fresh(), 4) == 0.0);
}

TEST_CASE("Holt starts the level at the first value and the trend at 0") {
  const HoltState s = observe(fresh(), 10);
  CHECK(s.level == 10.0);
  CHECK(s.trend == 0.0);
  CHECK(forecast(s, 4) == 10.0);
}

TEST_CASE("Holt level and trend follow the seed's update by hand-computed numbers") {
  HoltState s = observe(fresh(), 10);
  s = observe(s, 12);
  // level = 0.3*12 + 0.7*(10 + 0) = 10.6; trend = 0.15*(10.6 - 10) + 0.85*0 = 0.09
  CHECK(s.level == Approx(10.6).epsilon(1e-12));
  CHECK(s.trend == Approx(0.09).epsilon(1e-12));
  s = observe(s, 15);
  // level = 0.3*15 + 0.7*(10.6 + 0.09) = 11.983
  // trend = 0.15*(11.983 - 10.6) + 0.85*0.09 = 0.28395
  CHECK(s.level == Approx(11.983).epsilon(1e-12));
  CHECK(s.trend == Approx(0.28395).epsilon(1e-12));
  // 60 s ahead at 15 s steps = 4 steps: 11.983 + 4*0.28395 = 13.1188
  CHECK(forecast(s, horizon_steps(60, 15)) == Approx(13.1188).epsilon(1e-12));
  CHECK(forecast(s, horizon_steps(0, 15)) == Approx(11.983).epsilon(1e-12));
  CHECK(forecast(s, horizon_steps(7.5, 15)) == Approx(11.983 + 0.5 * 0.28395).epsilon(1e-12));
}

TEST_CASE("A negative horizon counts as zero steps") {
  HoltState s = observe(observe(fresh(), 10), 12);
  CHECK(horizon_steps(-30, 15) == 0.0);
  CHECK(forecast(s, -3) == s.level);
}

TEST_CASE("Holt never forecasts negative traffic") {
  HoltState s = observe(observe(fresh(), 100), 10);
  // level = 0.3*10 + 0.7*100 = 73; trend = 0.15*(73 - 100) = -4.05
  CHECK(s.level == Approx(73));
  CHECK(s.trend == Approx(-4.05));
  CHECK(forecast(s, 100) == 0.0);
}

TEST_CASE("Holt ignores gaps in the series") {
  const HoltState s = observe(observe(fresh(), 10), 12);
  const HoltState after_gap = observe(s, NAN);
  CHECK(after_gap.count == s.count);
  CHECK(after_gap.level == s.level);
}

TEST_CASE("Holt rejects a smoothing weight outside 0 < w <= 1 naming it") {
  auto bad = make_holt_state(HoltConfig::with_alpha(1.5));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("holt.alpha") != std::string::npos);
  CHECK_FALSE(make_holt_state(HoltConfig::with_alpha(0)).ok());
}
