// Online choice of load predictor, for capstan's `hybrid` policy (DESIGN.md): run
// several predictors side by side on the same series and forecast with the one whose
// recent one-step-ahead forecasts were closest. Each candidate keeps an exponentially
// weighted mean of |forecast(1) - observed|, scored before the observation is folded in.
// A candidate is scored only once it has seen one point, so the zero forecast of an
// empty state counts against nobody. Ties go to the earlier candidate, so listing the
// simpler predictors first prefers them while the others are still warming up (during
// warm-up they answer as the constant predictor and tie with it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/forecast/predictor.hpp"
#include "domain/core/result.hpp"

namespace capstan {

struct SelectorConfig {
  double error_weight = 0.1;  // weight of the newest absolute error, (0, 1]
};

struct SelectorCandidate {
  PredictorState predictor;
  double mean_abs_error = 0;  // exponentially weighted, valid when scored > 0
  std::int64_t scored = 0;    // one-step forecasts compared with an observation
};

struct SelectorState {
  SelectorConfig config;
  std::vector<SelectorCandidate> candidates;  // at least one
};

// One candidate per kind, in the order given. Errors name the field (an empty list,
// a duplicate kind, a bad weight, or a predictor config error).
Result<SelectorState> make_selector(const std::vector<PredictorKind>& kinds,
                                    const PredictorConfig& predictors = {},
                                    const SelectorConfig& config = {});

// Taken by value: a caller that moves its state in updates it without a copy.
SelectorState observe(SelectorState state, double value);
// The candidate forecasting now: lowest weighted error among those scored at least
// `min_scored` times (at least once), else the first. A caller that will not carry a
// forecast further ahead than the points it was judged on passes its horizon.
std::size_t selected_index(const SelectorState& state, double min_scored = 1);
PredictorKind selected_kind(const SelectorState& state, double min_scored = 1);
double forecast(const SelectorState& state, double horizon_steps, double min_scored = 1);

void to_json(nlohmann::json& j, const SelectorConfig& c);
void from_json(const nlohmann::json& j, SelectorConfig& c);
void to_json(nlohmann::json& j, const SelectorCandidate& c);
void from_json(const nlohmann::json& j, SelectorCandidate& c);
void to_json(nlohmann::json& j, const SelectorState& s);
void from_json(const nlohmann::json& j, SelectorState& s);
Result<SelectorState> selector_from_json(const nlohmann::json& j);

}  // namespace capstan
