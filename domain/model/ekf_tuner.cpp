#include "domain/model/ekf_tuner.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>

#include <Eigen/Dense>

#include "domain/core/format.hpp"
#include "domain/model/queue_model.hpp"
#include "domain/core/root_find.hpp"

namespace capstan {
namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Vec2 = Eigen::Vector2d;
using Mat2 = Eigen::Matrix2d;
using Mat23 = Eigen::Matrix<double, 2, 3>;

Vec3 to_vec(const ServiceParams& p) { return {p.alpha_ms, p.beta_ms, p.gamma_ms}; }
ServiceParams to_params(const Vec3& v) { return {v(0), v(1), v(2)}; }

Mat3 to_mat(const std::array<double, 9>& a) {
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(a.data());
}
std::array<double, 9> to_array(const Mat3& m) {
  std::array<double, 9> a{};
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(a.data()) = m;
  return a;
}

TunerState make_state(const ServiceParams& p, double bound_factor, double spread) {
  TunerState s;
  s.params = p;
  const Vec3 x = to_vec(p);
  s.covariance = to_array(Mat3::Identity() * spread * spread);
  s.min_params = to_params(x / bound_factor);
  s.max_params = to_params(x * bound_factor);
  return s;
}

std::optional<Error> positive_finite(double v, const char* name) {
  if (!std::isfinite(v) || v <= 0) {
    return invalid_argument(std::string(name) + " must be a finite number > 0, got " + fmt_num(v));
  }
  return std::nullopt;
}

Result<std::array<double, 2>> predict_with(const QueueAnalyzer& qa, const TunerObservation& obs) {
  auto m = qa.analyze(obs.arrival_rate_rps);
  if (!m) return m.error();
  return std::array<double, 2>{m->ttft_without_decode_ms(), m->itl_ms};
}

// The parameters an update starts from, and what they predict for the observation.
struct Prior {
  ServiceParams params;
  Result<std::array<double, 2>> predicted;
  bool projected = false;  // moved along their ray (project_onto_rate)
};

// All three parameters scale time linearly, so s x serves 1/s times as fast. When the
// observed rate is beyond what x can carry (typically a bootstrap taken under load,
// where ITL overstates alpha), move x along that ray to the point whose predicted ITL at
// the observed rate matches the observation, staying inside the stable range. The
// prediction at the parameters chosen is one the search made (its last, or an end of
// the bracket), kept rather than solved again, as is the prediction at x when x already
// carries the rate: one analyzer and one chain solve fewer per update.
Prior project_onto_rate(const ServiceParams& p, const TunerObservation& obs, int ratio) {
  auto qa = QueueAnalyzer::create(p, {obs.max_batch_size, obs.max_batch_size * ratio},
                                  {obs.input_tokens, obs.output_tokens});
  if (!qa) return {p, qa.error()};
  if (obs.arrival_rate_rps < qa->max_rate_rps()) return {p, predict_with(*qa, obs)};
  const double s_hi = qa->max_rate_rps() / obs.arrival_rate_rps * (1 - 1e-3);
  const auto along = [&](double s) { return ServiceParams{p.alpha_ms * s, p.beta_ms * s, p.gamma_ms * s}; };
  struct Tried {
    double s;
    Result<std::array<double, 2>> predicted;
  };
  std::optional<Tried> last;
  auto itl_at = [&](double s) {
    last.emplace(Tried{s, predict_observation(along(s), obs, ratio)});
    return last->predicted ? (*last->predicted)[1] : NAN;
  };
  const double s_lo = s_hi * 1e-3;
  const double f_lo = itl_at(s_lo);
  const Tried at_lo = *last;
  const double f_hi = itl_at(s_hi);
  const Tried at_hi = *last;
  double s = s_hi;
  if (std::isfinite(f_lo) && std::isfinite(f_hi) && f_lo < obs.itl_ms && obs.itl_ms < f_hi) {
    s = brent_root(itl_at, s_lo, s_hi, f_lo, f_hi, obs.itl_ms, 1e-6).x;
  }
  const auto bits = std::bit_cast<std::uint64_t>(s);
  for (const Tried* t : {static_cast<const Tried*>(&*last), &at_hi, &at_lo}) {
    if (std::bit_cast<std::uint64_t>(t->s) == bits) return {along(s), t->predicted, true};
  }
  return {along(s), predict_observation(along(s), obs, ratio), true};
}

// A rejected update keeps the previous parameters and covariance (WVA's stash/unstash)
// and only counts the rejection.
TunerStep reject(TunerStep step, const TunerState& previous) {
  step.state = previous;
  ++step.state.rejected_updates;
  ++step.state.consecutive_rejections;
  step.accepted = false;
  return step;
}

}  // namespace

const char* to_string(TunerSource source) {
  switch (source) {
    case TunerSource::kBootstrap: return "bootstrap";
    case TunerSource::kDefault: return "default";
    case TunerSource::kEkf: return "ekf";
  }
  return "ekf";
}

std::optional<Error> validate(const TunerObservation& o) {
  if (auto e = positive_finite(o.ttft_ms, "ttft_ms")) return e;
  if (auto e = positive_finite(o.itl_ms, "itl_ms")) return e;
  if (auto e = positive_finite(o.input_tokens, "input_tokens")) return e;
  if (!std::isfinite(o.output_tokens) || o.output_tokens < 1) {
    return invalid_argument("output_tokens must be a finite number >= 1, got " + fmt_num(o.output_tokens));
  }
  if (auto e = positive_finite(o.arrival_rate_rps, "arrival_rate")) return e;
  if (o.max_batch_size < 1) {
    return invalid_argument("max_batch must be >= 1, got " + std::to_string(o.max_batch_size));
  }
  return std::nullopt;
}

Result<ServiceParams> bootstrap_params(const TunerObservation& o, double base_factor) {
  if (auto err = validate(o)) return *err;
  const double alpha = base_factor * o.itl_ms;
  const double beta_plus_gamma = (o.ttft_ms - alpha) / o.input_tokens;
  const double denom = o.input_tokens + (o.output_tokens + 1) / 2 - 1;
  // Each decode step of the batch processes every running request's context, so the
  // load part of an ITL is the batch's, not one request's (WVA reads it at a batch of one).
  const double batch = std::isfinite(o.batch) ? std::max(1.0, o.batch) : 1.0;
  const double gamma = ((o.itl_ms - alpha) - beta_plus_gamma) / (denom * batch);
  const double beta = beta_plus_gamma - gamma;
  const ServiceParams p{alpha, beta, gamma};
  if (!(alpha > 0) || !(beta > 0) || !(gamma > 0) || !std::isfinite(alpha + beta + gamma)) {
    return Error{ErrorCode::kModelError, "bootstrap gave non-positive parameters alpha=" +
                                             fmt_num(alpha) + " beta=" + fmt_num(beta) +
                                             " gamma=" + fmt_num(gamma)};
  }
  return p;
}

TunerStart initial_state(const TunerObservation& obs, const TunerConfig& c) {
  if (auto p = bootstrap_params(obs, c.base_factor)) {
    return {make_state(*p, c.bound_factor, c.initial_spread), TunerSource::kBootstrap};
  }
  return {make_state(kDefaultParams, c.bound_factor, c.initial_spread), TunerSource::kDefault};
}

Result<std::array<double, 2>> predict_observation(const ServiceParams& params,
                                                  const TunerObservation& obs, int ratio) {
  auto qa = QueueAnalyzer::create(params, {obs.max_batch_size, obs.max_batch_size * ratio},
                                  {obs.input_tokens, obs.output_tokens});
  if (!qa) return qa.error();
  return predict_with(*qa, obs);
}

Result<TunerStep> tune_step(const TunerState& state, const TunerObservation& obs,
                            const TunerConfig& c) {
  if (auto err = validate(obs)) return *err;
  TunerStep out{state, 0, false, ""};

  // The filter runs on u = log(x): the parameters are positive scale factors whose
  // errors are multiplicative, so in log space the proportional process noise
  // diag((c x)^2) becomes the constant diag(c^2) and no update can turn a parameter
  // negative. The stored covariance is the log-space one (relative errors).
  const Prior prior = project_onto_rate(out.state.params, obs, c.queue_to_batch_ratio);
  if (prior.projected) {
    out.state.params = prior.params;
    out.reason = "parameters rescaled so the model carries the observed rate; ";
  }
  const Vec3 x = to_vec(out.state.params);
  const Vec3 u = x.array().log();
  Mat3 p_pred = to_mat(state.covariance);
  for (int i = 0; i < 3; ++i) p_pred(i, i) += std::pow(c.percent_change[static_cast<size_t>(i)], 2);
  if (state.consecutive_rejections >= c.reopen_after_rejections) {
    p_pred += Mat3::Identity() * c.initial_spread * c.initial_spread;
    out.reason += "covariance re-opened after " + std::to_string(state.consecutive_rejections) +
                  " consecutive rejections; ";
  }

  const Result<std::array<double, 2>>& h = prior.predicted;
  if (!h) {
    out.reason += "model cannot evaluate the observation at the current parameters: " + h.error().message;
    return reject(out, state);
  }
  // Observations in log space too: the measurement noise is proportional to the value.
  const Vec2 hz{std::log((*h)[0]), std::log((*h)[1])};
  // Jacobian by backward differences: smaller parameters mean a faster server, so the
  // perturbed model stays within its stable range whenever the current one is.
  Mat23 jac;
  for (int i = 0; i < 3; ++i) {
    Vec3 up = u;
    const double step = 1e-6;
    up(i) -= step;
    auto hp = predict_observation(to_params(up.array().exp()), obs, c.queue_to_batch_ratio);
    if (!hp) {
      out.reason += "model cannot evaluate the Jacobian: " + hp.error().message;
      return reject(out, state);
    }
    jac(0, i) = (hz(0) - std::log((*hp)[0])) / step;
    jac(1, i) = (hz(1) - std::log((*hp)[1])) / step;
  }

  const Vec2 z{std::log(obs.ttft_ms), std::log(obs.itl_ms)};
  const double f = std::pow(c.error_level / c.t_percentile, 2) / c.gamma_factor;
  const Mat2 r = Mat2::Identity() * f;

  const Vec2 y = z - hz;
  const Mat2 s = jac * p_pred * jac.transpose() + r;
  const Eigen::LDLT<Mat2> s_ldlt(s);
  if (s_ldlt.info() != Eigen::Success || !(s.determinant() > 0)) {
    out.reason += "innovation covariance is singular";
    return reject(out, state);
  }
  const Eigen::Matrix<double, 3, 2> gain = p_pred * jac.transpose() * s_ldlt.solve(Mat2::Identity());
  const Vec3 lo = to_vec(state.min_params).array().log(), hi = to_vec(state.max_params).array().log();
  const Vec3 u_new = (u + gain * y).cwiseMax(lo).cwiseMin(hi);
  const Vec3 x_new = u_new.array().exp();
  // Joseph form keeps the covariance symmetric and positive semi-definite.
  const Mat3 i_kh = Mat3::Identity() - gain * jac;
  Mat3 p_new = i_kh * p_pred * i_kh.transpose() + gain * r * gain.transpose();
  p_new = 0.5 * (p_new + p_new.transpose());

  out.nis = y.dot(s_ldlt.solve(y));
  if (!(x_new.minCoeff() > 0) || !x_new.allFinite()) {
    out.reason += "update gave non-positive parameters";
  } else if (!std::isfinite(out.nis) || out.nis >= c.max_nis) {
    out.reason += "NIS " + fmt_num(out.nis) + " >= " + fmt_num(c.max_nis) + ": observation rejected as an outlier";
  } else {
    out.state.params = to_params(x_new);
    out.state.covariance = to_array(p_new);
    out.accepted = true;
    out.reason.clear();
    ++out.state.accepted_updates;
    out.state.consecutive_rejections = 0;
    return out;
  }
  return reject(out, state);
}

}  // namespace capstan
