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

ArimaState fresh(int min_points = 30, ArimaGrid grid = {}) {
  ArimaConfig c;
  c.grid = grid;
  c.min_points = min_points;
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

TEST_CASE("After its first fit the ARIMA predictor keeps no observations and forecasts toward the mean") {
  ArimaState s = fresh(30);
  for (double v : ar1_series(0.7, 50, 2, 400, 99)) s = observe(s, v);
  REQUIRE(s.fitted);
  CHECK(s.history.empty());
  CHECK(s.fallback.count == 400);
  CHECK(s.model.ar.at(0) == Approx(0.7).margin(0.1));
  CHECK(forecast(s, 500) == Approx(50).margin(2.0));
}

TEST_CASE("An AR order updated one observation at a time is the least-squares fit over all of them") {
  // Dynamo's fit once, then update: the order chosen on the first 30 points, the
  // parameters re-estimated over the whole history at every new point.
  const ArimaGrid ar_only{2, 1, 0};
  const std::vector<double> y = ar1_series(0.6, 40, 3, 300, 11);
  ArimaState s = fresh(30, ar_only);
  for (double v : y) s = observe(s, v);
  REQUIRE(s.fitted);
  auto batch = fit_arima(y, s.model.order, arima_score_from(ar_only));
  REQUIRE(batch.ok());
  CHECK(s.model.constant == Approx(batch->constant).epsilon(1e-9));
  for (std::size_t i = 0; i < batch->ar.size(); ++i) CHECK(s.model.ar.at(i) == Approx(batch->ar[i]).epsilon(1e-9));
  CHECK(s.model.scored_points == batch->scored_points);
  // And it forecasts as the batch model does from the same series.
  CHECK(forecast(s, 3) == Approx(arima_forecast_path(*batch, arima_tail(*batch, y), y.back(), 3)[3]).epsilon(1e-9));
}

TEST_CASE("The ARIMA state is as large after ten thousand observations as after a thousand") {
  ArimaState s = fresh();
  const std::vector<double> y = ar1_series(0.8, 30, 4, 10000, 3);
  std::size_t at_1000 = 0;  // from here on its counts take the same bytes
  for (std::size_t t = 0; t < y.size(); ++t) {
    s = observe(s, y[t]);
    if (t + 1 == 1000) at_1000 = nlohmann::json::to_msgpack(nlohmann::json(s)).size();
  }
  REQUIRE(s.fitted);
  CHECK(nlohmann::json::to_msgpack(nlohmann::json(s)).size() == at_1000);
  CHECK(at_1000 < 300);
}

TEST_CASE("An ARIMA state read back continues exactly, and one whose sums do not match its order is refused") {
  ArimaState s = fresh();
  const std::vector<double> y = ar1_series(0.5, 20, 2, 120, 8);
  for (std::size_t t = 0; t < 80; ++t) s = observe(s, y[t]);
  ArimaState back = nlohmann::json(s).get<ArimaState>();
  for (std::size_t t = 80; t < y.size(); ++t) {
    s = observe(s, y[t]);
    back = observe(back, y[t]);
  }
  CHECK(nlohmann::json(back) == nlohmann::json(s));
  CHECK(forecast(back, 4) == forecast(s, 4));
  nlohmann::json corrupt = s;
  corrupt[7][9].push_back(1.0);  // one sum of x w too many
  CHECK_THROWS_WITH(corrupt.get<ArimaState>(), Catch::Contains("do not match the order"));
}

TEST_CASE("ARIMA answers as the constant predictor until min_points observations") {
  ArimaState s = fresh(30);
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

TEST_CASE("ARIMA rejects min_points too few for its grid naming it") {
  ArimaConfig c;
  c.min_points = 10;
  auto bad = make_arima_state(c);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "arima.min_points must be >= 14 for this grid, got 10");
}
