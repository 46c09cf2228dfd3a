#include "domain/forecast/holt_predictor.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/format.hpp"

namespace capstan {

Result<HoltState> make_holt_state(const HoltConfig& config) {
  if (!(config.alpha > 0 && config.alpha <= 1)) {
    return invalid_argument("holt.alpha must be in (0, 1], got " + fmt_num(config.alpha));
  }
  if (!(config.beta > 0 && config.beta <= 1)) {
    return invalid_argument("holt.beta must be in (0, 1], got " + fmt_num(config.beta));
  }
  HoltState s;
  s.config = config;
  return s;
}

HoltState observe(const HoltState& state, double value) {
  if (!std::isfinite(value)) return state;
  HoltState next = state;
  ++next.count;
  if (state.count == 0) {
    next.level = value;
    next.trend = 0.0;
    return next;
  }
  const double a = state.config.alpha, b = state.config.beta;
  next.level = a * value + (1 - a) * (state.level + state.trend);
  next.trend = b * (next.level - state.level) + (1 - b) * state.trend;
  return next;
}

double forecast(const HoltState& state, double horizon_steps) {
  if (state.count == 0) return 0.0;
  const double steps = std::isfinite(horizon_steps) ? std::max(0.0, horizon_steps) : 0.0;
  return std::max(0.0, state.level + steps * state.trend);
}

void to_json(nlohmann::json& j, const HoltConfig& c) {
  j = {{"alpha", c.alpha}, {"beta", c.beta}};
}

void from_json(const nlohmann::json& j, HoltConfig& c) {
  j.at("alpha").get_to(c.alpha);
  j.at("beta").get_to(c.beta);
}

void to_json(nlohmann::json& j, const HoltState& s) {
  j = {{"config", s.config}, {"count", s.count}, {"level", s.level}, {"trend", s.trend}};
}

void from_json(const nlohmann::json& j, HoltState& s) {
  j.at("config").get_to(s.config);
  j.at("count").get_to(s.count);
  j.at("level").get_to(s.level);
  j.at("trend").get_to(s.trend);
}

}  // namespace capstan
