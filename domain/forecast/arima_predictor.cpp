#include "domain/forecast/arima_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <Eigen/Dense>

#include "domain/forecast/forecast_horizon.hpp"

namespace capstan {
namespace {

Error bad(const std::string& field, const std::string& rule, int value) {
  return invalid_argument("arima." + field + " must be " + rule + ", got " + std::to_string(value));
}

// Adds the row (x, w) to the running sums.
void accumulate(std::vector<double>& xx, std::vector<double>& xw, const std::vector<double>& x, double w) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xw[i] += x[i] * w;
    for (std::size_t j = i; j < x.size(); ++j) xx[k++] += x[i] * x[j];
  }
}

// The least-squares parameters from the sums; false when they do not determine them.
bool solve_into(const std::vector<double>& xx, const std::vector<double>& xw, ArimaModel& model) {
  const auto n = static_cast<Eigen::Index>(xw.size());
  Eigen::MatrixXd a(n, n);
  Eigen::VectorXd b(n);
  std::size_t k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    b(i) = xw[static_cast<std::size_t>(i)];
    for (Eigen::Index j = i; j < n; ++j) a(i, j) = a(j, i) = xx[k++];
  }
  const auto qr = a.colPivHouseholderQr();
  if (qr.rank() < n) return false;
  const Eigen::VectorXd beta = qr.solve(b);
  if (!beta.allFinite()) return false;
  model.constant = beta(0);
  for (std::size_t i = 0; i < model.ar.size(); ++i) model.ar[i] = beta(static_cast<Eigen::Index>(1 + i));
  for (std::size_t j = 0; j < model.ma.size(); ++j) {
    model.ma[j] = beta(static_cast<Eigen::Index>(1 + model.ar.size() + j));
  }
  return true;
}

void set_aic(ArimaModel& m) {
  // As fit_arima: a perfect fit would make ln(0); a tiny variance floor keeps it finite.
  const double sigma2 = std::max(m.css / m.scored_points, 1e-300);
  m.aic = m.scored_points * std::log(sigma2) + 2.0 * static_cast<double>(m.order.p + m.order.q + 1);
}

// The first fit: the order and parameters from the kept observations, and the sums of
// the rows the fit scored, so that later updates extend exactly that regression.
void fit_history(ArimaState& s) {
  auto model = select_arima(s.history, s.config.grid);
  if (!model) return;  // e.g. a constant series: keep answering as the constant predictor
  const std::vector<double> w = difference(s.history, model->order.d);
  const std::vector<double> e = arima_residuals(*model, w);
  const int from = arima_first_row(model->order, arima_score_from(s.config.grid));
  const std::size_t k = 1 + model->ar.size() + model->ma.size();
  s.xx.assign(k * (k + 1) / 2, 0.0);
  s.xw.assign(k, 0.0);
  for (int t = from; t < static_cast<int>(w.size()); ++t) {
    std::vector<double> x{1.0};
    for (int i = 1; i <= model->order.p; ++i) x.push_back(w[static_cast<std::size_t>(t - i)]);
    for (int j = 1; j <= model->order.q; ++j) x.push_back(e[static_cast<std::size_t>(t - j)]);
    accumulate(s.xx, s.xw, x, w[static_cast<std::size_t>(t)]);
  }
  s.tail = arima_tail(*model, s.history);
  s.model = *model;
  s.fitted = true;
  s.history.clear();
  s.history.shrink_to_fit();
}

// One more observation of a fitted model: difference it, score it, extend the sums,
// re-estimate the parameters and move the tail on.
void update(ArimaState& s, double value) {
  ArimaTail& tail = s.tail;
  double w = value;
  for (double& level : tail.levels) {
    const double next = w - level;
    level = w;
    w = next;
  }
  const std::vector<double> x = arima_regressors(tail);
  double fit = s.model.constant;
  for (std::size_t i = 0; i < s.model.ar.size(); ++i) fit += s.model.ar[i] * x[1 + i];
  for (std::size_t j = 0; j < s.model.ma.size(); ++j) fit += s.model.ma[j] * x[1 + s.model.ar.size() + j];
  const double e = w - fit;
  accumulate(s.xx, s.xw, x, w);
  s.model.css += e * e;
  ++s.model.scored_points;
  set_aic(s.model);
  solve_into(s.xx, s.xw, s.model);  // sums that no longer determine them keep the last parameters
  if (!tail.lags.empty()) {
    tail.lags.erase(tail.lags.begin());
    tail.lags.push_back(w);
  }
  if (!tail.shocks.empty()) {
    tail.shocks.erase(tail.shocks.begin());
    tail.shocks.push_back(e);
  }
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
  ArimaState s;
  s.config = c;
  return s;
}

ArimaState observe(const ArimaState& state, double value) {
  if (!std::isfinite(value)) return state;
  ArimaState next = state;
  next.fallback = observe(state.fallback, value);
  if (next.fitted) {
    update(next, value);
  } else {
    next.history.push_back(value);
    if (next.fallback.count >= state.config.min_points) fit_history(next);
  }
  return next;
}

double forecast(const ArimaState& state, double horizon_steps) {
  if (!state.fitted) return forecast(state.fallback, horizon_steps);
  const int whole = static_cast<int>(std::ceil(std::isfinite(horizon_steps) ? std::max(0.0, horizon_steps) : 0.0));
  const std::vector<double> path = arima_forecast_path(state.model, state.tail, state.fallback.last, whole);
  const double v = interpolate_steps([&](int n) { return path[static_cast<std::size_t>(n)]; },
                                     horizon_steps);
  return std::isfinite(v) ? std::max(0.0, v) : forecast(state.fallback, horizon_steps);
}

void to_json(nlohmann::json& j, const ArimaConfig& c) {
  j = {{"grid", c.grid}, {"min_points", c.min_points}};
}

void from_json(const nlohmann::json& j, ArimaConfig& c) {
  j.at("grid").get_to(c.grid);
  j.at("min_points").get_to(c.min_points);
}

// As arrays, not objects: a variant's state is kept under 2 KiB (issue 19), and member
// names would take a third of these bytes.
//   [max_p, max_d, max_q, min_points, count, last, [history...], model]
//   model: null before the fit, else [p, d, q, scored_points, css, aic, [constant, ar..., ma...],
//          [levels..., lags..., shocks...], [x x' upper triangle...], [x w...]]
void to_json(nlohmann::json& j, const ArimaState& s) {
  const ArimaGrid& g = s.config.grid;
  nlohmann::json model;
  if (s.fitted) {
    const ArimaModel& m = s.model;
    std::vector<double> params{m.constant};
    params.insert(params.end(), m.ar.begin(), m.ar.end());
    params.insert(params.end(), m.ma.begin(), m.ma.end());
    std::vector<double> tail = s.tail.levels;
    tail.insert(tail.end(), s.tail.lags.begin(), s.tail.lags.end());
    tail.insert(tail.end(), s.tail.shocks.begin(), s.tail.shocks.end());
    model = {m.order.p, m.order.d, m.order.q, m.scored_points, m.css, m.aic, params, tail, s.xx, s.xw};
  }
  j = {g.max_p, g.max_d, g.max_q, s.config.min_points, s.fallback.count, s.fallback.last, s.history, model};
}

void from_json(const nlohmann::json& j, ArimaState& s) {
  const auto fail = [&](const std::string& why) {
    throw nlohmann::json::other_error::create(501, "arima state: " + why, &j);
  };
  if (!j.is_array() || j.size() != 8) {
    fail("must be [max_p, max_d, max_q, min_points, count, last, history, model]");
  }
  s = {};
  s.config.grid = {j[0].get<int>(), j[1].get<int>(), j[2].get<int>()};
  s.config.min_points = j[3].get<int>();
  s.fallback = {j[4].get<std::int64_t>(), j[5].get<double>()};
  j[6].get_to(s.history);
  const nlohmann::json& model = j[7];
  s.fitted = !model.is_null();
  if (!s.fitted) return;
  if (!model.is_array() || model.size() != 10) {
    fail("model must be [p, d, q, scored_points, css, aic, params, tail, xx, xw]");
  }
  ArimaModel& m = s.model;
  m.order = {model[0].get<int>(), model[1].get<int>(), model[2].get<int>()};
  m.scored_points = model[3].get<int>();
  m.css = model[4].get<double>();
  m.aic = model[5].get<double>();
  const auto params = model[6].get<std::vector<double>>();
  const auto tail = model[7].get<std::vector<double>>();
  model[8].get_to(s.xx);
  model[9].get_to(s.xw);
  // The shapes the order implies, so that a corrupt state is refused here, not read past its end.
  const auto p = static_cast<std::size_t>(std::max(0, m.order.p)), d = static_cast<std::size_t>(std::max(0, m.order.d)),
             q = static_cast<std::size_t>(std::max(0, m.order.q)), k = 1 + p + q;
  if (m.order.p < 0 || m.order.d < 0 || m.order.q < 0 || params.size() != k || tail.size() != d + p + q ||
      s.xx.size() != k * (k + 1) / 2 || s.xw.size() != k) {
    fail("the parameters, tail or sums do not match the order");
  }
  m.constant = params[0];
  m.ar.assign(params.begin() + 1, params.begin() + static_cast<std::ptrdiff_t>(1 + p));
  m.ma.assign(params.begin() + static_cast<std::ptrdiff_t>(1 + p), params.end());
  s.tail.levels.assign(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(d));
  s.tail.lags.assign(tail.begin() + static_cast<std::ptrdiff_t>(d), tail.begin() + static_cast<std::ptrdiff_t>(d + p));
  s.tail.shocks.assign(tail.begin() + static_cast<std::ptrdiff_t>(d + p), tail.end());
}

}  // namespace capstan
