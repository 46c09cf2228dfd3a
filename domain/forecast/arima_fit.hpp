// ARIMA(p, d, q) on a plain series, the model behind the Dynamo planner's "arima" load
// predictor (seed 001 "Load Prediction", seed 003), fitted by conditional least squares:
//   w = the series differenced d times,
//   w_t = c + sum_i phi_i w_{t-i} + e_t + sum_j theta_j e_{t-j},
// with the residuals before the first fitted point taken as 0. Pure AR models are an
// ordinary least-squares problem (Eigen QR). With MA terms the start comes from
// Hannan-Rissanen (a long AR's residuals stand in for e), then the regression is
// repeated on the model's own recursive residuals while the sum of squares falls.
//
// select_arima() scores every order of a small grid on the same observations (so the
// conditional likelihoods of different d compare: differencing has unit Jacobian) and
// keeps the lowest AIC = n ln(CSS / n) + 2 (p + q + 1); ties keep the simpler order.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan {

struct ArimaOrder {
  int p = 0;
  int d = 0;
  int q = 0;

  bool operator==(const ArimaOrder&) const = default;
};

struct ArimaGrid {
  int max_p = 2;  // 0..5
  int max_d = 1;  // 0..2
  int max_q = 1;  // 0..3
};

struct ArimaModel {
  ArimaOrder order;
  double constant = 0;      // c (a drift when d = 1)
  std::vector<double> ar;   // phi_1..phi_p
  std::vector<double> ma;   // theta_1..theta_q
  double css = 0;           // conditional sum of squared residuals on the scored points
  int scored_points = 0;
  double aic = 0;
};

// The series differenced d times (length n - d; empty if d >= n).
std::vector<double> difference(const std::vector<double>& series, int d);

// Fits one order, scoring residuals of original indices >= score_from.
// kNoData when too few points remain; kModelError when the regression is singular.
Result<ArimaModel> fit_arima(const std::vector<double>& series, const ArimaOrder& order,
                             int score_from);

// Lowest-AIC order of the grid. kNoData when the series is too short for any order.
Result<ArimaModel> select_arima(const std::vector<double>& series, const ArimaGrid& grid);

// The first index of the d-times differenced series whose residual is scored when
// every order of `grid` is compared on the same observations (select_arima).
int arima_score_from(const ArimaGrid& grid);
int arima_first_row(const ArimaOrder& order, int score_from);

// The model's recursive residuals on the differenced series w (0 before index p).
std::vector<double> arima_residuals(const ArimaModel& model, const std::vector<double>& w);

// The end of a series, all a fitted model needs to forecast it and to take its next
// observation: nothing older than p differenced values and q residuals is read again.
struct ArimaTail {
  std::vector<double> levels;  // the last value of the series differenced j times, j = 0..d-1
  std::vector<double> lags;    // the last p values of the differenced series, oldest first
  std::vector<double> shocks;  // the last q residuals, oldest first
};

ArimaTail arima_tail(const ArimaModel& model, const std::vector<double>& series);

// The regressors of the next differenced value: [1, w_{t-1..t-p}, e_{t-1..t-q}].
std::vector<double> arima_regressors(const ArimaTail& tail);

// Forecasts 0..steps whole steps past the end of the series whose tail this is; element
// 0 is `last`, the last observation.
std::vector<double> arima_forecast_path(const ArimaModel& model, const ArimaTail& tail, double last, int steps);

void to_json(nlohmann::json& j, const ArimaGrid& g);
void from_json(const nlohmann::json& j, ArimaGrid& g);
void to_json(nlohmann::json& j, const ArimaModel& m);
void from_json(const nlohmann::json& j, ArimaModel& m);

}  // namespace capstan
