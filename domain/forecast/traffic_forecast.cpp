#include "domain/forecast/traffic_forecast.hpp"

#include <utility>

namespace capstan {

Result<TrafficForecastState> make_traffic_forecast(const std::vector<PredictorKind>& kinds,
                                                   const PredictorConfig& predictors,
                                                   const SelectorConfig& config) {
  auto selector = make_selector(kinds, predictors, config);
  if (!selector) return selector.error();
  return TrafficForecastState{*selector, *selector, *selector};
}

TrafficForecastState observe(TrafficForecastState state, const TrafficSample& sample) {
  return {observe(std::move(state.rate_rps), sample.rate_rps),
          observe(std::move(state.avg_input_tokens), sample.avg_input_tokens),
          observe(std::move(state.avg_output_tokens), sample.avg_output_tokens)};
}

TrafficSample forecast(const TrafficForecastState& state, double horizon_steps, double min_scored) {
  return {forecast(state.rate_rps, horizon_steps, min_scored),
          forecast(state.avg_input_tokens, horizon_steps, min_scored),
          forecast(state.avg_output_tokens, horizon_steps, min_scored)};
}

TrafficForecastState warm_start(TrafficForecastState state, const std::vector<TrafficSample>& trace) {
  for (const TrafficSample& s : trace) state = observe(std::move(state), s);
  return state;
}

void to_json(nlohmann::json& j, const TrafficForecastState& s) {
  j = {{"rate_rps", s.rate_rps},
       {"avg_input_tokens", s.avg_input_tokens},
       {"avg_output_tokens", s.avg_output_tokens}};
}

void from_json(const nlohmann::json& j, TrafficForecastState& s) {
  j.at("rate_rps").get_to(s.rate_rps);
  j.at("avg_input_tokens").get_to(s.avg_input_tokens);
  j.at("avg_output_tokens").get_to(s.avg_output_tokens);
}

}  // namespace capstan
