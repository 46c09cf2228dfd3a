// Kalman local-linear-trend load predictor (Dynamo planner, seed 001 "Load Prediction";
// ../shared/reference/dynamo.md section 1.5): the series is a level that drifts by a
// trend, both random walks, seen through measurement noise:
//   x = [level, trend],  x' = F x + w,  F = [[1, 1], [0, 1]],  w ~ N(0, diag(q_level, q_trend))
//   y = level + v,        v ~ N(0, r)
// As Dynamo's (filterpy, reproduced to its test vectors A8-A15): the covariance starts at
// 1000 I; the first stored point sets the level (trend 0) without an update; each later
// point is a predict and a Joseph-form update; zeros before the first non-zero value are
// not stored (leading-idle skip); with `log1p` the filter runs on log1p(y) and forecasts
// expm1. forecast(h) = max(0, level + h trend), and only after min_points stored points:
// before that it answers the last value, as the constant predictor.
//
// One departure: a non-finite reading is skipped, where Dynamo stores 0. A metrics gap
// is not zero traffic, and a forecaster that reads it as such scales down a fleet whose
// metrics vanished.
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
  bool log1p = false;     // filter log1p(y) (Dynamo's load_predictor_log1p)
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
