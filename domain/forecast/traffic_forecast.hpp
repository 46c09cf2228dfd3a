// The traffic shape the Dynamo planner forecasts each interval (seed 001, "Step 2: Load
// Prediction"): request rate, average input length and average output length, each an
// independent scalar series with its own predictor selector (domain/forecast/predictor_selector.hpp).
// The forecast is taken at the cold-start horizon (Inferscale, seed 004 ch. 3-4).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "domain/forecast/predictor_selector.hpp"
#include "domain/core/result.hpp"

namespace capstan {

struct TrafficSample {
  double rate_rps = 0;
  double avg_input_tokens = 0;
  double avg_output_tokens = 0;
};

struct TrafficForecastState {
  SelectorState rate_rps;
  SelectorState avg_input_tokens;
  SelectorState avg_output_tokens;
};

// The same candidates and tuning for all three series.
Result<TrafficForecastState> make_traffic_forecast(const std::vector<PredictorKind>& kinds,
                                                   const PredictorConfig& predictors = {},
                                                   const SelectorConfig& config = {});

// Taken by value, as the selector's observe: moved in, updated without a copy.
TrafficForecastState observe(TrafficForecastState state, const TrafficSample& sample);
// `min_scored`: as the selector's (predictor_selector.hpp).
TrafficSample forecast(const TrafficForecastState& state, double horizon_steps, double min_scored = 1);

// Warm start from a recorded trace, oldest first.
TrafficForecastState warm_start(TrafficForecastState state, const std::vector<TrafficSample>& trace);

void to_json(nlohmann::json& j, const TrafficForecastState& s);
void from_json(const nlohmann::json& j, TrafficForecastState& s);

}  // namespace capstan
