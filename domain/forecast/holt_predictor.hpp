// Holt's linear trend (double exponential smoothing), Inferscale's forecaster (seed 004,
// chapter 4), reproduced exactly:
//   first value:  level = y, trend = 0
//   afterwards:   level' = alpha y + (1 - alpha)(level + trend)
//                 trend' = beta (level' - level) + (1 - beta) trend
//   forecast(h) = max(0, level + h trend),  h = max(0, horizon_s / step_s)
// with beta = alpha / 2 by default. Before any observation the forecast is 0, and after
// one it is that value: the constant predictor's answer, so no separate warm-up.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan {

struct HoltConfig {
  double alpha = 0.3;   // weight of the newest observation in the level, (0, 1]
  double beta = 0.15;   // weight of the newest level change in the trend, (0, 1]

  // The seed's pairing: beta = alpha / 2.
  static HoltConfig with_alpha(double alpha) { return {alpha, alpha / 2.0}; }
};

struct HoltState {
  HoltConfig config;
  std::int64_t count = 0;
  double level = 0;
  double trend = 0;
};

// Names the offending field: "holt.alpha must be in (0, 1], got 1.5".
Result<HoltState> make_holt_state(const HoltConfig& config);

HoltState observe(const HoltState& state, double value);
double forecast(const HoltState& state, double horizon_steps);

void to_json(nlohmann::json& j, const HoltConfig& c);
void from_json(const nlohmann::json& j, HoltConfig& c);
void to_json(nlohmann::json& j, const HoltState& s);
void from_json(const nlohmann::json& j, HoltState& s);

}  // namespace capstan
