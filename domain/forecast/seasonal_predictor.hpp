// Seasonal load predictor: additive Holt-Winters with a daily period (the Dynamo
// planner's seasonal predictors, seed 001 "Load Prediction"; seed 003 lists prophet
// for the same purpose). The first full period initialises the model:
//   level = mean of the period, trend = 0, season[i] = y_i - level;
// afterwards, for the observation at position i of the period,
//   level'    = alpha (y - season[i]) + (1 - alpha)(level + trend)
//   trend'    = beta (level' - level) + (1 - beta) trend
//   season[i] = gamma (y - level') + (1 - gamma) season[i]
//   forecast(h) = max(0, level + h trend + season[(last position + h) mod period])
// Until one period is seen it answers as the constant predictor. Fractional horizons
// interpolate between whole steps.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/forecast/constant_predictor.hpp"
#include "domain/core/result.hpp"

namespace capstan {

inline constexpr int kDailyPeriodAt15sSteps = 86400 / 15;

struct SeasonalConfig {
  int period_steps = kDailyPeriodAt15sSteps;  // observations per season, >= 2
  double alpha = 0.3;   // level smoothing, (0, 1]
  double beta = 0.01;   // trend smoothing, [0, 1]
  double gamma = 0.3;   // seasonal smoothing, [0, 1]

  // A daily season for a series sampled every step_s seconds.
  static SeasonalConfig daily(double step_s);
};

struct SeasonalState {
  SeasonalConfig config;
  ConstantState fallback;       // the warm-up answer; also counts observations
  double level = 0;
  double trend = 0;
  std::vector<double> season;   // raw first-period values until initialised, then offsets
};

// Names the offending field: "seasonal.period_steps must be >= 2, got 1".
Result<SeasonalState> make_seasonal_state(const SeasonalConfig& config);

SeasonalState observe(const SeasonalState& state, double value);
double forecast(const SeasonalState& state, double horizon_steps);
bool warmed_up(const SeasonalState& state);

void to_json(nlohmann::json& j, const SeasonalConfig& c);
void from_json(const nlohmann::json& j, SeasonalConfig& c);
void to_json(nlohmann::json& j, const SeasonalState& s);
void from_json(const nlohmann::json& j, SeasonalState& s);

}  // namespace capstan
