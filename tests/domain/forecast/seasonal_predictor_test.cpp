#include "domain/forecast/seasonal_predictor.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "domain/deterministic_noise.hpp"

using namespace capstan;

namespace {

constexpr int kPeriod = 24;

double daily(int t) { return 100.0 + 30.0 * std::sin(6.283185307179586 * t / kPeriod); }

SeasonalState fresh() {
  SeasonalConfig c;
  c.period_steps = kPeriod;
  auto s = make_seasonal_state(c);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("The seasonal model forecasts a periodic series") {
  SeasonalState s = fresh();
  const int n = 5 * kPeriod + 7;
  for (int t = 0; t < n; ++t) s = observe(s, daily(t));
  for (int h : {1, 5, 12, 24, 30}) {
    INFO("h = " << h);
    CHECK(forecast(s, h) == Approx(daily(n - 1 + h)).margin(1e-9));
  }
}

TEST_CASE("The seasonal model tracks a noisy periodic series with a trend") {
  capstan::testing::LcgNoise noise(11);
  SeasonalState s = fresh();
  const int n = 20 * kPeriod;
  auto truth = [](int t) { return daily(t) + 0.2 * t; };
  for (int t = 0; t < n; ++t) s = observe(s, truth(t) + noise.gaussian());
  for (int h : {3, 12, 20}) {
    INFO("h = " << h);
    CHECK(forecast(s, h) == Approx(truth(n - 1 + h)).margin(4.0));
  }
}

TEST_CASE("The seasonal model answers as the constant predictor during its first period") {
  SeasonalState s = fresh();
  for (int t = 0; t < kPeriod - 1; ++t) {
    s = observe(s, daily(t));
    CHECK_FALSE(warmed_up(s));
    CHECK(forecast(s, 6) == daily(t));
  }
  s = observe(s, daily(kPeriod - 1));
  CHECK(warmed_up(s));
  CHECK(forecast(s, 6) == Approx(daily(kPeriod - 1 + 6)).margin(1e-9));
}

TEST_CASE("The default seasonal period is one day of steps") {
  CHECK(SeasonalConfig{}.period_steps == 5760);
  CHECK(SeasonalConfig::daily(60).period_steps == 1440);
  SeasonalConfig c;
  c.period_steps = 1;
  auto bad = make_seasonal_state(c);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("seasonal.period_steps") != std::string::npos);
}

TEST_CASE("A seasonal state whose season does not match its count is refused on load") {
  SeasonalState s = fresh();
  for (int t = 0; t < 30; ++t) s = observe(s, daily(t));
  nlohmann::json j = s;
  j["season"].erase(0);
  CHECK_THROWS_AS(j.get<SeasonalState>(), nlohmann::json::exception);
  CHECK(nlohmann::json(s).get<SeasonalState>().season == s.season);
}
