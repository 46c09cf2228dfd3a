#include "domain/forecast/seasonal_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "domain/core/format.hpp"
#include "domain/forecast/forecast_horizon.hpp"

namespace capstan {
namespace {

std::size_t position(std::int64_t index, int period) {
  return static_cast<std::size_t>(index % period);
}

}  // namespace

SeasonalConfig SeasonalConfig::daily(double step_s) {
  SeasonalConfig c;
  c.period_steps = static_cast<int>(std::lround(86400.0 / step_s));
  return c;
}

Result<SeasonalState> make_seasonal_state(const SeasonalConfig& c) {
  if (c.period_steps < 2) {
    return invalid_argument("seasonal.period_steps must be >= 2, got " +
                            std::to_string(c.period_steps));
  }
  if (!(c.alpha > 0 && c.alpha <= 1))
    return invalid_argument("seasonal.alpha must be in (0, 1], got " + fmt_num(c.alpha));
  if (!(c.beta >= 0 && c.beta <= 1))
    return invalid_argument("seasonal.beta must be in [0, 1], got " + fmt_num(c.beta));
  if (!(c.gamma >= 0 && c.gamma <= 1))
    return invalid_argument("seasonal.gamma must be in [0, 1], got " + fmt_num(c.gamma));
  SeasonalState s;
  s.config = c;
  return s;
}

bool warmed_up(const SeasonalState& state) {
  return state.fallback.count >= state.config.period_steps;
}

SeasonalState observe(const SeasonalState& state, double value) {
  if (!std::isfinite(value)) return state;
  const int m = state.config.period_steps;
  SeasonalState next = state;
  next.fallback = observe(state.fallback, value);
  if (!warmed_up(state)) {
    next.season.push_back(value);
    if (warmed_up(next)) {
      next.level = std::accumulate(next.season.begin(), next.season.end(), 0.0) / m;
      next.trend = 0.0;
      for (double& s : next.season) s -= next.level;
    }
    return next;
  }
  const std::size_t i = position(state.fallback.count, m);
  const double a = state.config.alpha, b = state.config.beta, g = state.config.gamma;
  next.level = a * (value - state.season[i]) + (1 - a) * (state.level + state.trend);
  next.trend = b * (next.level - state.level) + (1 - b) * state.trend;
  next.season[i] = g * (value - next.level) + (1 - g) * state.season[i];
  return next;
}

double forecast(const SeasonalState& state, double horizon_steps) {
  if (!warmed_up(state)) return forecast(state.fallback, horizon_steps);
  const int m = state.config.period_steps;
  const std::int64_t last = state.fallback.count - 1;  // index of the newest observation
  auto at_step = [&](int h) {
    return state.level + h * state.trend + state.season[position(last + h, m)];
  };
  return std::max(0.0, interpolate_steps(at_step, horizon_steps));
}

void to_json(nlohmann::json& j, const SeasonalConfig& c) {
  j = {{"period_steps", c.period_steps}, {"alpha", c.alpha}, {"beta", c.beta}, {"gamma", c.gamma}};
}

void from_json(const nlohmann::json& j, SeasonalConfig& c) {
  j.at("period_steps").get_to(c.period_steps);
  j.at("alpha").get_to(c.alpha);
  j.at("beta").get_to(c.beta);
  j.at("gamma").get_to(c.gamma);
}

void to_json(nlohmann::json& j, const SeasonalState& s) {
  j = {{"config", s.config}, {"fallback", s.fallback}, {"level", s.level},
       {"trend", s.trend},   {"season", s.season}};
}

void from_json(const nlohmann::json& j, SeasonalState& s) {
  j.at("config").get_to(s.config);
  j.at("fallback").get_to(s.fallback);
  j.at("level").get_to(s.level);
  j.at("trend").get_to(s.trend);
  j.at("season").get_to(s.season);
  // observe() indexes the season by position: refuse a state that would overrun it.
  const std::int64_t expected = std::min<std::int64_t>(s.fallback.count, s.config.period_steps);
  if (s.config.period_steps < 2 || static_cast<std::int64_t>(s.season.size()) != expected) {
    throw nlohmann::json::other_error::create(
        501, "seasonal state has " + std::to_string(s.season.size()) + " season values, expected " +
                 std::to_string(expected),
        &j);
  }
}

}  // namespace capstan
