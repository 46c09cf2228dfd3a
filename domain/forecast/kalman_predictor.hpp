// Kalman local-linear-trend load predictor (Dynamo planner, seed 001 "Load Prediction"
// and "Predictor warm-up period"): the series is a level that drifts by a trend, both
// random walks, seen through measurement noise:
//   x = [level, trend],  x' = F x + w,  F = [[1, 1], [0, 1]],  w ~ N(0, diag(q_level, q_trend))
//   y = level + v,        v ~ N(0, r)
// forecast(h) = max(0, level + h trend). It forecasts only after min_points
// observations; before that it answers as the constant predictor.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "domain/forecast/constant_predictor.hpp"
#include "domain/core/result.hpp"

namespace capstan {

struct KalmanConfig {
  double q_level = 1.0;   // process noise of the level per step, > 0
  double q_trend = 0.1;   // process noise of the trend per step, > 0
  double r = 10.0;        // measurement noise variance, > 0
  int min_points = 5;     // observations before the filter's forecast is used, >= 1
};

struct KalmanState {
  KalmanConfig config;
  ConstantState fallback;  // the warm-up answer; also counts observations
  double level = 0;
  double trend = 0;
  double p_level = 0;      // covariance of [level, trend], symmetric
  double p_cross = 0;
  double p_trend = 0;
};

// Names the offending field: "kalman.r must be > 0, got 0".
Result<KalmanState> make_kalman_state(const KalmanConfig& config);

KalmanState observe(const KalmanState& state, double value);
double forecast(const KalmanState& state, double horizon_steps);
bool warmed_up(const KalmanState& state);

void to_json(nlohmann::json& j, const KalmanConfig& c);
void from_json(const nlohmann::json& j, KalmanConfig& c);
void to_json(nlohmann::json& j, const KalmanState& s);
void from_json(const nlohmann::json& j, KalmanState& s);

}  // namespace capstan
