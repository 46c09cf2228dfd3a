// The ARIMA load predictor (Dynamo planner, seed 001 "Load Prediction" and "Predictor
// warm-up period"; seed 003): keeps a sliding window of the series, refits the
// lowest-AIC ARIMA(p, d, q) of a small grid every refit_every observations
// (domain/forecast/arima_fit.hpp), and forecasts from the last fitted model over the current
// window. Until it has min_points observations and a fit, it answers as the constant
// predictor. Fractional horizons interpolate between whole steps.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "domain/forecast/arima_fit.hpp"
#include "domain/forecast/constant_predictor.hpp"
#include "domain/core/result.hpp"

namespace capstan {

struct ArimaConfig {
  ArimaGrid grid;
  int window = 240;       // observations kept and fitted, >= min_points
  int min_points = 30;    // observations before the first fit
  int refit_every = 20;   // observations between refits, >= 1
};

struct ArimaState {
  ArimaConfig config;
  ConstantState fallback;        // the warm-up answer; also counts observations
  std::vector<double> history;   // the last `window` observations, oldest first
  bool fitted = false;
  ArimaModel model;              // valid when fitted
  int since_fit = 0;             // observations since the last (attempted) fit
};

// Names the offending field: "arima.window must be >= arima.min_points (30), got 10".
Result<ArimaState> make_arima_state(const ArimaConfig& config);

ArimaState observe(const ArimaState& state, double value);
double forecast(const ArimaState& state, double horizon_steps);

void to_json(nlohmann::json& j, const ArimaConfig& c);
void from_json(const nlohmann::json& j, ArimaConfig& c);
void to_json(nlohmann::json& j, const ArimaState& s);
void from_json(const nlohmann::json& j, ArimaState& s);

}  // namespace capstan
