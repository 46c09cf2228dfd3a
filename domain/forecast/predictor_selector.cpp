#include "domain/forecast/predictor_selector.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "domain/core/format.hpp"

namespace capstan {

Result<SelectorState> make_selector(const std::vector<PredictorKind>& kinds,
                                    const PredictorConfig& predictors,
                                    const SelectorConfig& config) {
  if (kinds.empty()) return invalid_argument("selector.kinds must name at least one predictor");
  if (!(config.error_weight > 0 && config.error_weight <= 1)) {
    return invalid_argument("selector.error_weight must be in (0, 1], got " +
                            fmt_num(config.error_weight));
  }
  SelectorState s;
  s.config = config;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (kinds[j] == kinds[i]) {
        return invalid_argument(std::string("selector.kinds lists ") + to_string(kinds[i]) +
                                " twice");
      }
    }
    auto p = make_predictor(kinds[i], predictors);
    if (!p) return p.error();
    s.candidates.push_back({*p, 0.0, 0});
  }
  return s;
}

SelectorState observe(SelectorState state, double value) {
  if (!std::isfinite(value)) return state;
  SelectorState next = std::move(state);
  const double w = next.config.error_weight;
  for (SelectorCandidate& c : next.candidates) {
    if (observation_count(c.predictor) > 0) {
      const double err = std::fabs(forecast(c.predictor, 1.0) - value);
      c.mean_abs_error = c.scored == 0 ? err : (1 - w) * c.mean_abs_error + w * err;
      ++c.scored;
    }
    c.predictor = observe(c.predictor, value);
  }
  return next;
}

std::size_t selected_index(const SelectorState& state, double min_scored) {
  const double judged_on = std::isfinite(min_scored) ? std::max(1.0, min_scored) : 1.0;
  std::size_t best = 0;
  bool found = false;
  for (std::size_t i = 0; i < state.candidates.size(); ++i) {
    const SelectorCandidate& c = state.candidates[i];
    if (static_cast<double>(c.scored) < judged_on) continue;  // judged_on >= 1: never unscored
    if (!found || c.mean_abs_error < state.candidates[best].mean_abs_error) {
      best = i;
      found = true;
    }
  }
  return best;
}

PredictorKind selected_kind(const SelectorState& state, double min_scored) {
  return kind_of(state.candidates.at(selected_index(state, min_scored)).predictor);
}

double forecast(const SelectorState& state, double horizon_steps, double min_scored) {
  if (state.candidates.empty()) return 0.0;
  return forecast(state.candidates[selected_index(state, min_scored)].predictor, horizon_steps);
}

void to_json(nlohmann::json& j, const SelectorConfig& c) { j = {{"error_weight", c.error_weight}}; }

void from_json(const nlohmann::json& j, SelectorConfig& c) {
  j.at("error_weight").get_to(c.error_weight);
}

void to_json(nlohmann::json& j, const SelectorCandidate& c) {
  j = {{"predictor", c.predictor}, {"mean_abs_error", c.mean_abs_error}, {"scored", c.scored}};
}

void from_json(const nlohmann::json& j, SelectorCandidate& c) {
  j.at("predictor").get_to(c.predictor);
  j.at("mean_abs_error").get_to(c.mean_abs_error);
  j.at("scored").get_to(c.scored);
}

void to_json(nlohmann::json& j, const SelectorState& s) {
  j = {{"config", s.config}, {"candidates", s.candidates}};
}

void from_json(const nlohmann::json& j, SelectorState& s) {
  j.at("config").get_to(s.config);
  j.at("candidates").get_to(s.candidates);
}

Result<SelectorState> selector_from_json(const nlohmann::json& j) {
  try {
    auto s = j.get<SelectorState>();
    if (s.candidates.empty()) return invalid_argument("selector state has no candidates");
    return s;
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("selector state: ") + e.what());
  }
}

}  // namespace capstan
