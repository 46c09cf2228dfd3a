#include "domain/forecast/kalman_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

using Vec2 = Eigen::Vector2d;
using Mat2 = Eigen::Matrix2d;

Mat2 covariance(const KalmanState& s) {
  Mat2 p;
  p << s.p_level, s.p_cross, s.p_cross, s.p_trend;
  return p;
}

}  // namespace

Result<KalmanState> make_kalman_state(const KalmanConfig& config) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(config.q_level))
    return invalid_argument("kalman.q_level must be > 0, got " + fmt_num(config.q_level));
  if (!positive(config.q_trend))
    return invalid_argument("kalman.q_trend must be > 0, got " + fmt_num(config.q_trend));
  if (!positive(config.r)) return invalid_argument("kalman.r must be > 0, got " + fmt_num(config.r));
  if (config.min_points < 1)
    return invalid_argument("kalman.min_points must be >= 1, got " +
                            std::to_string(config.min_points));
  KalmanState s;
  s.config = config;
  return s;
}

// filterpy's default initial covariance, which Dynamo keeps.
constexpr double kInitialVariance = 1000.0;

KalmanState observe(const KalmanState& state, double value) {
  if (!std::isfinite(value)) return state;
  if (state.fallback.count == 0 && value == 0) return state;  // leading-idle skip
  KalmanState next = state;
  next.fallback = observe(state.fallback, value);
  const double z = state.config.log1p ? std::log1p(std::max(0.0, value)) : value;
  if (state.fallback.count == 0) {
    next.level = z;
    next.trend = 0.0;
    next.p_level = kInitialVariance;
    next.p_cross = 0.0;
    next.p_trend = kInitialVariance;
    return next;
  }
  Mat2 f;
  f << 1, 1, 0, 1;
  Mat2 q = Mat2::Zero();
  q(0, 0) = state.config.q_level;
  q(1, 1) = state.config.q_trend;

  const Vec2 x_pred = f * Vec2(state.level, state.trend);
  const Mat2 p_pred = f * covariance(state) * f.transpose() + q;

  const double innovation = z - x_pred(0);
  const double s = p_pred(0, 0) + state.config.r;
  const Vec2 gain = p_pred.col(0) / s;
  const Vec2 x = x_pred + gain * innovation;
  // Joseph form keeps the covariance symmetric and positive.
  Mat2 i_kh = Mat2::Identity();
  i_kh.col(0) -= gain;
  const Mat2 p = i_kh * p_pred * i_kh.transpose() + gain * gain.transpose() * state.config.r;

  next.level = x(0);
  next.trend = x(1);
  next.p_level = p(0, 0);
  next.p_cross = 0.5 * (p(0, 1) + p(1, 0));
  next.p_trend = p(1, 1);
  return next;
}

bool warmed_up(const KalmanState& state) {
  return state.fallback.count >= state.config.min_points;
}

double forecast(const KalmanState& state, double horizon_steps) {
  if (!warmed_up(state)) return forecast(state.fallback, horizon_steps);
  const double steps = std::isfinite(horizon_steps) ? std::max(0.0, horizon_steps) : 0.0;
  const double level = state.level + steps * state.trend;
  return std::max(0.0, state.config.log1p ? std::expm1(level) : level);
}

void to_json(nlohmann::json& j, const KalmanConfig& c) {
  j = {{"q_level", c.q_level}, {"q_trend", c.q_trend}, {"r", c.r}, {"min_points", c.min_points}, {"log1p", c.log1p}};
}

void from_json(const nlohmann::json& j, KalmanConfig& c) {
  j.at("q_level").get_to(c.q_level);
  j.at("q_trend").get_to(c.q_trend);
  j.at("r").get_to(c.r);
  j.at("min_points").get_to(c.min_points);
  c.log1p = j.value("log1p", false);
}

void to_json(nlohmann::json& j, const KalmanState& s) {
  j = {{"config", s.config},   {"fallback", s.fallback}, {"level", s.level},
       {"trend", s.trend},     {"p_level", s.p_level},   {"p_cross", s.p_cross},
       {"p_trend", s.p_trend}};
}

void from_json(const nlohmann::json& j, KalmanState& s) {
  j.at("config").get_to(s.config);
  j.at("fallback").get_to(s.fallback);
  j.at("level").get_to(s.level);
  j.at("trend").get_to(s.trend);
  j.at("p_level").get_to(s.p_level);
  j.at("p_cross").get_to(s.p_cross);
  j.at("p_trend").get_to(s.p_trend);
}

}  // namespace capstan
