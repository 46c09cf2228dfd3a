// The ARIMA load predictor, as the Dynamo planner's default since its SLA planner (seed
// 001 "Load Prediction"; ../shared/reference/dynamo.md 1.3): it fits once, then updates.
// Until min_points observations it answers as the constant predictor and keeps them;
// then it selects the lowest-AIC ARIMA(p, d, q) of a small grid on them
// (domain/forecast/arima_fit.hpp), drops them, and from there on keeps the order and
// re-estimates the parameters with every new observation over the whole history, as
// Dynamo's `model.update(new_points)` does.
//
// What makes the whole history affordable is that the parameters are a least-squares
// regression of the differenced value w_t on x_t = [1, w_{t-1..t-p}, e_{t-1..t-q}]: the
// sums of x x' and x w over every observation are all the estimate needs, and the model
// forecasts from the series' tail (the last p differenced values, q residuals and d
// levels). The state is therefore bounded by the grid -- for the default grid 14 sums
// and 4 tail values, under 300 B as MessagePack -- where a window of past observations
// grows with its length (240 points took about 2.2 KB per series).
// For AR orders (q = 0) this is exactly the conditional least squares over all
// observations since the fit's first scored point; with MA terms each new row uses the
// residual under the parameters of its time (extended least squares, the recursive form
// of the fit's Hannan-Rissanen iterations). Fractional horizons interpolate between
// whole steps.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "domain/forecast/arima_fit.hpp"
#include "domain/forecast/constant_predictor.hpp"
#include "domain/core/result.hpp"

namespace capstan {

struct ArimaConfig {
  ArimaGrid grid;
  int min_points = 30;  // observations before the order is selected and first fitted
};

struct ArimaState {
  ArimaConfig config;
  ConstantState fallback;        // the warm-up answer; also counts observations
  std::vector<double> history;   // the observations before the first fit, oldest first
  bool fitted = false;
  // Valid when fitted: the model, the series' tail, and the regression's running sums
  // over every scored observation (x x' as its upper triangle by rows, and x w).
  ArimaModel model;
  ArimaTail tail;
  std::vector<double> xx;
  std::vector<double> xw;
};

// Names the offending field: "arima.min_points must be >= 14 for this grid, got 10".
Result<ArimaState> make_arima_state(const ArimaConfig& config);

ArimaState observe(const ArimaState& state, double value);
double forecast(const ArimaState& state, double horizon_steps);

void to_json(nlohmann::json& j, const ArimaConfig& c);
void from_json(const nlohmann::json& j, ArimaConfig& c);
void to_json(nlohmann::json& j, const ArimaState& s);
void from_json(const nlohmann::json& j, ArimaState& s);

}  // namespace capstan
