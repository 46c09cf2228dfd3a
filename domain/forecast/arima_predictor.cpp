#include "domain/forecast/arima_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "domain/forecast/forecast_horizon.hpp"

namespace capstan {
namespace {

Error bad(const std::string& field, const std::string& rule, int value) {
  return invalid_argument("arima." + field + " must be " + rule + ", got " + std::to_string(value));
}

}  // namespace

Result<ArimaState> make_arima_state(const ArimaConfig& c) {
  const ArimaGrid& g = c.grid;
  if (g.max_p < 0 || g.max_p > 5) return bad("grid.max_p", "in [0, 5]", g.max_p);
  if (g.max_d < 0 || g.max_d > 2) return bad("grid.max_d", "in [0, 2]", g.max_d);
  if (g.max_q < 0 || g.max_q > 3) return bad("grid.max_q", "in [0, 3]", g.max_q);
  // Enough points for the largest order's regression after the scoring offset.
  const int needed = 2 * (g.max_d + g.max_p + g.max_q) + 6;
  if (c.min_points < needed) {
    return bad("min_points", ">= " + std::to_string(needed) + " for this grid", c.min_points);
  }
  if (c.window < c.min_points) {
    return bad("window", ">= arima.min_points (" + std::to_string(c.min_points) + ")", c.window);
  }
  if (c.refit_every < 1) return bad("refit_every", ">= 1", c.refit_every);
  ArimaState s;
  s.config = c;
  return s;
}

ArimaState observe(const ArimaState& state, double value) {
  if (!std::isfinite(value)) return state;
  ArimaState next = state;
  next.fallback = observe(state.fallback, value);
  next.history.push_back(value);
  const auto window = static_cast<std::size_t>(std::max(1, state.config.window));
  if (next.history.size() > window) {
    next.history.erase(next.history.begin(),
                       next.history.begin() + static_cast<std::ptrdiff_t>(next.history.size() - window));
  }
  ++next.since_fit;
  const bool enough = next.fallback.count >= state.config.min_points;
  if (enough && (!state.fitted || next.since_fit >= state.config.refit_every)) {
    next.since_fit = 0;
    if (auto model = select_arima(next.history, state.config.grid)) {
      next.model = *model;
      next.fitted = true;
    }  // a failed refit keeps the previous model
  }
  return next;
}

double forecast(const ArimaState& state, double horizon_steps) {
  if (!state.fitted || state.history.empty()) return forecast(state.fallback, horizon_steps);
  const int whole = static_cast<int>(std::ceil(std::isfinite(horizon_steps) ? std::max(0.0, horizon_steps) : 0.0));
  const std::vector<double> path = arima_forecast_path(state.model, state.history, whole);
  const double v = interpolate_steps([&](int n) { return path[static_cast<std::size_t>(n)]; },
                                     horizon_steps);
  return std::isfinite(v) ? std::max(0.0, v) : forecast(state.fallback, horizon_steps);
}

void to_json(nlohmann::json& j, const ArimaConfig& c) {
  j = {{"grid", c.grid},
       {"window", c.window},
       {"min_points", c.min_points},
       {"refit_every", c.refit_every}};
}

void from_json(const nlohmann::json& j, ArimaConfig& c) {
  j.at("grid").get_to(c.grid);
  j.at("window").get_to(c.window);
  j.at("min_points").get_to(c.min_points);
  j.at("refit_every").get_to(c.refit_every);
}

void to_json(nlohmann::json& j, const ArimaState& s) {
  j = {{"config", s.config},   {"fallback", s.fallback}, {"history", s.history},
       {"fitted", s.fitted},   {"since_fit", s.since_fit}};
  if (s.fitted) j["model"] = s.model;
}

void from_json(const nlohmann::json& j, ArimaState& s) {
  j.at("config").get_to(s.config);
  j.at("fallback").get_to(s.fallback);
  j.at("history").get_to(s.history);
  j.at("fitted").get_to(s.fitted);
  j.at("since_fit").get_to(s.since_fit);
  s.model = s.fitted ? j.at("model").get<ArimaModel>() : ArimaModel{};
}

}  // namespace capstan
