#include "domain/forecast/arima_predictor.hpp"

#include <vector>

#include <catch2/catch.hpp>

#include "domain/deterministic_noise.hpp"
#include "domain/forecast/arima_fit.hpp"

using namespace capstan;

namespace {

// y_t = mean + phi (y_{t-1} - mean) + sigma e_t
std::vector<double> ar1_series(double phi, double mean, double sigma, int n, std::uint64_t seed) {
  capstan::testing::LcgNoise noise(seed);
  std::vector<double> y;
  double x = mean;
  for (int t = 0; t < n; ++t) {
    x = mean + phi * (x - mean) + sigma * noise.gaussian();
    y.push_back(x);
  }
  return y;
}

ArimaState fresh(int window = 240, int min_points = 30, int refit_every = 20) {
  ArimaConfig c;
  c.window = window;
  c.min_points = min_points;
  c.refit_every = refit_every;
  auto s = make_arima_state(c);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("ARIMA order selection recovers a known AR(1) coefficient") {
  const std::vector<double> y = ar1_series(0.7, 50, 2, 800, 42);
  auto model = select_arima(y, ArimaGrid{});
  REQUIRE(model.ok());
  INFO("p=" << model->order.p << " d=" << model->order.d << " q=" << model->order.q);
  CHECK(model->order.d == 0);
  REQUIRE(model->order.p >= 1);
  CHECK(model->ar[0] == Approx(0.7).margin(0.06));
  // The constant is mean * (1 - phi) for an AR(1).
  if (model->order.p == 1 && model->order.q == 0) {
    CHECK(model->constant / (1 - model->ar[0]) == Approx(50).margin(1.0));
  }
}

TEST_CASE("An AR(1) fit alone is ordinary least squares on the lagged series") {
  const std::vector<double> y = ar1_series(-0.4, 10, 1, 500, 7);
  auto model = fit_arima(y, {1, 0, 0}, 1);
  REQUIRE(model.ok());
  CHECK(model->ar[0] == Approx(-0.4).margin(0.08));
  CHECK(model->css > 0);
  CHECK(model->scored_points == 499);
}

TEST_CASE("The ARIMA predictor refits on schedule and forecasts toward the mean") {
  ArimaState s = fresh(400, 30, 50);
  for (double v : ar1_series(0.7, 50, 2, 400, 99)) s = observe(s, v);
  REQUIRE(s.fitted);
  CHECK(s.history.size() == 400);
  CHECK(s.since_fit == 20);  // fitted at 30, refitted at 80, 130, ..., 380
  CHECK(s.model.ar.at(0) == Approx(0.7).margin(0.1));
  CHECK(forecast(s, 500) == Approx(50).margin(2.0));
}

TEST_CASE("ARIMA answers as the constant predictor until min_points observations") {
  ArimaState s = fresh(240, 30, 20);
  for (int t = 0; t < 29; ++t) {
    s = observe(s, 10.0 + t);
    CHECK_FALSE(s.fitted);
    CHECK(forecast(s, 5) == 10.0 + t);
  }
  s = observe(s, 39.0);
  CHECK(s.fitted);
}

TEST_CASE("ARIMA extends the trend of a trending series") {
  capstan::testing::LcgNoise noise(5);
  ArimaState s = fresh();
  for (int t = 0; t < 200; ++t) s = observe(s, 10.0 + 3.0 * t + 0.1 * noise.gaussian());
  REQUIRE(s.fitted);
  CHECK(forecast(s, 20) == Approx(10.0 + 3.0 * 219).epsilon(0.01));
  // A fractional horizon lies between its whole-step neighbours.
  const double f2 = forecast(s, 2), f3 = forecast(s, 3), f25 = forecast(s, 2.5);
  CHECK(f25 == Approx(0.5 * (f2 + f3)));
}

TEST_CASE("The ARIMA window keeps only the newest observations") {
  ArimaState s = fresh(50, 30, 10);
  for (int t = 0; t < 120; ++t) s = observe(s, t);
  CHECK(s.history.size() == 50);
  CHECK(s.history.front() == 70.0);
  CHECK(s.fallback.count == 120);
}

TEST_CASE("ARIMA rejects a window smaller than min_points naming it") {
  ArimaConfig c;
  c.window = 10;
  auto bad = make_arima_state(c);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("arima.window") != std::string::npos);
}
