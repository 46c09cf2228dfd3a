#include "domain/forecast/arima_fit.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <Eigen/Dense>

namespace capstan {
namespace {

constexpr int kMaxRefinements = 20;

struct Params {
  double constant = 0;
  std::vector<double> ar, ma;
};

// Recursive residuals of the ARMA part on w; 0 before index p.
std::vector<double> residuals(const Params& m, const std::vector<double>& w) {
  const int n = static_cast<int>(w.size());
  const int p = static_cast<int>(m.ar.size()), q = static_cast<int>(m.ma.size());
  std::vector<double> e(w.size(), 0.0);
  for (int t = p; t < n; ++t) {
    double fit = m.constant;
    for (int i = 1; i <= p; ++i) fit += m.ar[i - 1] * w[t - i];
    for (int j = 1; j <= q && t - j >= 0; ++j) fit += m.ma[j - 1] * e[t - j];
    e[t] = w[t] - fit;
  }
  return e;
}

double sum_squares(const std::vector<double>& e, int from) {
  double s = 0;
  for (std::size_t t = static_cast<std::size_t>(from); t < e.size(); ++t) s += e[t] * e[t];
  return s;
}

// Least squares of w_t on [1, w_{t-1..t-p}, lagged_{t-1..t-q}] over t in [from, n).
Result<Params> regress(const std::vector<double>& w, const std::vector<double>& lagged, int p,
                       int q, int from) {
  const int n = static_cast<int>(w.size());
  const int rows = n - from, cols = 1 + p + q;
  if (rows < cols + 2) return Error{ErrorCode::kNoData, "too few points for the regression"};
  Eigen::MatrixXd x(rows, cols);
  Eigen::VectorXd y(rows);
  for (int r = 0; r < rows; ++r) {
    const int t = from + r;
    y(r) = w[t];
    x(r, 0) = 1.0;
    for (int i = 1; i <= p; ++i) x(r, i) = w[t - i];
    for (int j = 1; j <= q; ++j) x(r, p + j) = lagged[t - j];
  }
  const auto qr = x.colPivHouseholderQr();
  if (qr.rank() < cols) return Error{ErrorCode::kModelError, "singular ARIMA regression"};
  const Eigen::VectorXd beta = qr.solve(y);
  Params out;
  out.constant = beta(0);
  for (int i = 1; i <= p; ++i) out.ar.push_back(beta(i));
  for (int j = 1; j <= q; ++j) out.ma.push_back(beta(p + j));
  return out;
}

}  // namespace

std::vector<double> difference(const std::vector<double>& series, int d) {
  std::vector<double> w = series;
  for (int k = 0; k < d; ++k) {
    if (w.size() <= 1) return {};
    for (std::size_t t = 0; t + 1 < w.size(); ++t) w[t] = w[t + 1] - w[t];
    w.pop_back();
  }
  return w;
}

Result<ArimaModel> fit_arima(const std::vector<double>& series, const ArimaOrder& order,
                             int score_from) {
  const int p = order.p, q = order.q;
  const std::vector<double> w = difference(series, order.d);
  const int n = static_cast<int>(w.size());
  const int from = arima_first_row(order, score_from);
  if (n - from < 2 * (1 + p + q) + 4) {
    return Error{ErrorCode::kNoData, "too few points (" + std::to_string(series.size()) +
                                         ") to fit this ARIMA order"};
  }

  Params best;
  double best_css = 0;
  if (q == 0) {
    auto ols = regress(w, {}, p, 0, from);
    if (!ols) return ols.error();
    best = *ols;
    best_css = sum_squares(residuals(best, w), from);
  } else {
    // Hannan-Rissanen start: residuals of a long autoregression stand in for e.
    const int m = std::min(std::max(2 * (p + q), 6), std::max(1, n / 4));
    auto long_ar = regress(w, {}, m, 0, m);
    if (!long_ar) return long_ar.error();
    const std::vector<double> e_hat = residuals(*long_ar, w);  // 0 before index m
    auto start = regress(w, e_hat, p, q, std::max(from, m + q));
    if (!start) return start.error();
    best = *start;
    best_css = sum_squares(residuals(best, w), from);
    if (!std::isfinite(best_css)) return Error{ErrorCode::kModelError, "ARIMA residuals diverge"};
    for (int it = 0; it < kMaxRefinements; ++it) {
      auto next = regress(w, residuals(best, w), p, q, from);
      if (!next) break;
      const double css = sum_squares(residuals(*next, w), from);
      if (!(css < best_css)) break;
      const bool converged = best_css - css <= 1e-12 * best_css;
      best = *next;
      best_css = css;
      if (converged) break;
    }
  }
  if (!std::isfinite(best_css)) return Error{ErrorCode::kModelError, "ARIMA residuals diverge"};

  ArimaModel out;
  out.order = order;
  out.constant = best.constant;
  out.ar = best.ar;
  out.ma = best.ma;
  out.css = best_css;
  out.scored_points = n - from;
  // A perfect fit would make ln(0); a tiny variance floor keeps the AIC finite.
  const double sigma2 = std::max(best_css / out.scored_points, 1e-300);
  out.aic = out.scored_points * std::log(sigma2) + 2.0 * (p + q + 1);
  return out;
}

int arima_score_from(const ArimaGrid& grid) { return grid.max_d + grid.max_p + grid.max_q; }

int arima_first_row(const ArimaOrder& order, int score_from) {
  return std::max({order.p, order.q, score_from - order.d, 0});
}

std::vector<double> arima_residuals(const ArimaModel& model, const std::vector<double>& w) {
  return residuals({model.constant, model.ar, model.ma}, w);
}

Result<ArimaModel> select_arima(const std::vector<double>& series, const ArimaGrid& grid) {
  const int score_from = arima_score_from(grid);
  std::optional<ArimaModel> best;
  for (int d = 0; d <= grid.max_d; ++d) {
    for (int p = 0; p <= grid.max_p; ++p) {
      for (int q = 0; q <= grid.max_q; ++q) {
        auto fit = fit_arima(series, {p, d, q}, score_from);
        if (fit && (!best || fit->aic < best->aic)) best = *fit;
      }
    }
  }
  if (!best) {
    return Error{ErrorCode::kNoData, "no ARIMA order fits a series of " +
                                         std::to_string(series.size()) + " points"};
  }
  return *best;
}

ArimaTail arima_tail(const ArimaModel& model, const std::vector<double>& series) {
  ArimaTail tail;
  for (int j = 0; j < model.order.d; ++j) {
    const std::vector<double> level = difference(series, j);
    tail.levels.push_back(level.empty() ? 0.0 : level.back());
  }
  const std::vector<double> w = difference(series, model.order.d);
  const std::vector<double> e = arima_residuals(model, w);
  const auto last = [](const std::vector<double>& v, std::size_t n) {
    return std::vector<double>(v.end() - static_cast<std::ptrdiff_t>(std::min(n, v.size())), v.end());
  };
  tail.lags = last(w, model.ar.size());
  tail.shocks = last(e, model.ma.size());
  // A series shorter than the orders (never after a fit) reads as zeros before its start.
  tail.lags.insert(tail.lags.begin(), model.ar.size() - tail.lags.size(), 0.0);
  tail.shocks.insert(tail.shocks.begin(), model.ma.size() - tail.shocks.size(), 0.0);
  return tail;
}

std::vector<double> arima_regressors(const ArimaTail& tail) {
  std::vector<double> x{1.0};
  x.insert(x.end(), tail.lags.rbegin(), tail.lags.rend());
  x.insert(x.end(), tail.shocks.rbegin(), tail.shocks.rend());
  return x;
}

std::vector<double> arima_forecast_path(const ArimaModel& model, const ArimaTail& tail, double last, int steps) {
  std::vector<double> path{last};
  ArimaTail at = tail;
  for (int h = 1; h <= steps; ++h) {
    const std::vector<double> x = arima_regressors(at);
    double next = model.constant;
    for (std::size_t i = 0; i < model.ar.size(); ++i) next += model.ar[i] * x[1 + i];
    for (std::size_t j = 0; j < model.ma.size(); ++j) next += model.ma[j] * x[1 + model.ar.size() + j];
    if (!at.lags.empty()) {
      at.lags.erase(at.lags.begin());
      at.lags.push_back(next);
    }
    if (!at.shocks.empty()) {  // future shocks have mean 0
      at.shocks.erase(at.shocks.begin());
      at.shocks.push_back(0.0);
    }
    double value = next;
    for (int j = model.order.d - 1; j >= 0; --j) {
      value += at.levels[static_cast<std::size_t>(j)];
      at.levels[static_cast<std::size_t>(j)] = value;
    }
    path.push_back(value);
  }
  return path;
}

void to_json(nlohmann::json& j, const ArimaGrid& g) {
  j = {{"max_p", g.max_p}, {"max_d", g.max_d}, {"max_q", g.max_q}};
}

void from_json(const nlohmann::json& j, ArimaGrid& g) {
  j.at("max_p").get_to(g.max_p);
  j.at("max_d").get_to(g.max_d);
  j.at("max_q").get_to(g.max_q);
}

void to_json(nlohmann::json& j, const ArimaModel& m) {
  j = {{"p", m.order.p},           {"d", m.order.d},     {"q", m.order.q},
       {"constant", m.constant},   {"ar", m.ar},         {"ma", m.ma},
       {"css", m.css},             {"scored_points", m.scored_points},
       {"aic", m.aic}};
}

void from_json(const nlohmann::json& j, ArimaModel& m) {
  j.at("p").get_to(m.order.p);
  j.at("d").get_to(m.order.d);
  j.at("q").get_to(m.order.q);
  j.at("constant").get_to(m.constant);
  j.at("ar").get_to(m.ar);
  j.at("ma").get_to(m.ma);
  j.at("css").get_to(m.css);
  j.at("scored_points").get_to(m.scored_points);
  j.at("aic").get_to(m.aic);
}

}  // namespace capstan
