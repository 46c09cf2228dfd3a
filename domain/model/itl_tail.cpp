#include "domain/model/itl_tail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <span>
#include <stdexcept>
#include <utility>

namespace capstan {
namespace {

// P(Z <= x) and P(Z > x), each accurate far into its own tail.
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double normal_sf(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }
double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi); }

constexpr double kTiny = 1e-300;
constexpr double kMinScale = 0.005, kMaxScale = 3;
constexpr ProbitCoefficients kColdStart{0, 1 / 0.3};  // scale 0.3 at location 0
// Beyond this |a + b position| a point with all its requests on the near side of its
// bound adds under 1e-17 of a request's worth to every sum: below what a double holds.
constexpr double kFarTail = 9;

using Windows = std::vector<std::span<const ItlTailPoint>>;

// A window's share of the log-likelihood of P(ITL <= bound) = Phi(a + b x), with its
// gradient and observed information (the Hessian negated: the log-likelihood of a
// probit is concave, so it is positive definite).
ItlFitTerms terms_of(std::span<const ItlTailPoint> points, ProbitCoefficients at) {
  ItlFitTerms t;
  for (const ItlTailPoint& p : points) {
    if (!(p.total > 0)) continue;
    const double eta = at.a + at.b * p.position;
    const double above = p.total - p.below;
    if ((above == 0 && eta > kFarTail) || (p.below == 0 && eta < -kFarTail)) continue;
    // A side without requests adds nothing: its tail is left uncomputed (a ratio times 0
    // requests is 0 either way), which saves an erfc and a log.
    const double cdf = p.below > 0 ? std::max(normal_cdf(eta), kTiny) : 1.0;
    const double sf = above > 0 ? std::max(normal_sf(eta), kTiny) : 1.0;
    const double pdf = normal_pdf(eta);
    const double below_ratio = pdf / cdf, above_ratio = pdf / sf;
    t.log_likelihood += (p.below > 0 ? p.below * std::log(cdf) : 0.0) + (above > 0 ? above * std::log(sf) : 0.0);
    const double g = p.below * below_ratio - above * above_ratio;
    const double w = p.below * below_ratio * (below_ratio + eta) + above * above_ratio * (above_ratio - eta);
    t.grad_a += g;
    t.grad_b += g * p.position;
    t.info_aa += w;
    t.info_ab += w * p.position;
    t.info_bb += w * p.position * p.position;
  }
  return t;
}

// Into `out`, whose storage is kept: an ascent evaluates the windows at each step it
// tries, and a buffer per evaluation was most of a refit's allocations.
void terms_of(const Windows& windows, ProbitCoefficients at, std::vector<ItlFitTerms>& out) {
  out.clear();
  out.reserve(windows.size());
  for (const auto& w : windows) out.push_back(terms_of(w, at));
}

std::vector<ItlFitTerms> terms_of(const Windows& windows, ProbitCoefficients at) {
  std::vector<ItlFitTerms> out;
  terms_of(windows, at, out);
  return out;
}

ItlFitTerms summed(const std::vector<ItlFitTerms>& terms) {
  ItlFitTerms s;
  for (const ItlFitTerms& t : terms) {
    s.log_likelihood += t.log_likelihood;
    s.grad_a += t.grad_a;
    s.grad_b += t.grad_b;
    s.info_aa += t.info_aa;
    s.info_ab += t.info_ab;
    s.info_bb += t.info_bb;
  }
  return s;
}

struct Ascent {
  std::optional<ProbitCoefficients> optimum;  // none: a singular information matrix
  bool converged = false;
  ProbitCoefficients evaluated;     // the last point the terms were evaluated at
  std::vector<ItlFitTerms> terms;   // per window, there
};

// Newton's method from `start` (with each window's terms there), halving a step that
// lowers the likelihood. A step within the tolerance is taken without evaluating where
// it lands: `evaluated` is then the point before it.
Ascent ascend(const Windows& windows, ProbitCoefficients start, std::vector<ItlFitTerms> terms) {
  Ascent out{start, false, start, std::move(terms)};
  ItlFitTerms total = summed(out.terms);
  ProbitCoefficients& at = out.evaluated;
  std::vector<ItlFitTerms> next;  // the windows' terms at the step tried, swapped in when taken
  for (int iter = 0; iter < 100; ++iter) {
    const double det = total.info_aa * total.info_bb - total.info_ab * total.info_ab;
    if (!(std::abs(det) > 1e-12)) {
      out.optimum.reset();
      return out;
    }
    double da = (total.info_bb * total.grad_a - total.info_ab * total.grad_b) / det;
    double db = (total.info_aa * total.grad_b - total.info_ab * total.grad_a) / det;
    const auto within_tolerance = [&](double a, double b) {
      return std::abs(da) < 1e-9 * (1 + std::abs(a)) && std::abs(db) < 1e-9 * (1 + std::abs(b));
    };
    if (at.b + db > 0 && within_tolerance(at.a + da, at.b + db)) {
      out.optimum = ProbitCoefficients{at.a + da, at.b + db};
      out.converged = true;
      return out;
    }
    bool evaluated = false;
    ItlFitTerms next_total;
    for (int half = 0; half < 30; ++half) {
      if (at.b + db > 0) {
        terms_of(windows, {at.a + da, at.b + db}, next);
        evaluated = true;
        next_total = summed(next);
        if (next_total.log_likelihood >= total.log_likelihood - 1e-12) break;
      }
      da /= 2;
      db /= 2;
    }
    if (!(at.b + db > 0) || !evaluated || next.empty() || next_total.log_likelihood < total.log_likelihood - 1e-12) {
      out.optimum = at;
      return out;
    }
    at = {at.a + da, at.b + db};
    std::swap(out.terms, next);
    total = next_total;
    out.optimum = at;
    if (within_tolerance(at.a, at.b)) {
      out.converged = true;
      return out;
    }
  }
  return out;
}

// The spread at the optimum, if it is one a window of requests can have.
std::optional<ItlSpread> spread_at(const std::optional<ProbitCoefficients>& optimum, double requests) {
  if (!optimum) return std::nullopt;
  const double scale = 1 / optimum->b;
  if (!(scale >= kMinScale && scale <= kMaxScale) || !std::isfinite(optimum->a)) return std::nullopt;
  return ItlSpread{-optimum->a * scale, scale, requests};
}

// The requests over the windows and whether some bound has requests on both sides.
std::pair<double, bool> evidence_of(const Windows& windows) {
  double requests = 0;
  bool split = false;
  for (const auto& w : windows) {
    if (w.empty()) continue;
    requests += w.front().total;
    for (const ItlTailPoint& p : w) split = split || (p.total > 0 && p.below > 0 && p.below < p.total);
  }
  return {requests, split};
}

std::vector<ItlTailPoint> points_of(const std::vector<double>& upper_bounds_ms, const std::vector<double>& cumulative,
                                    double count, double d1_ms, double model_itl_ms) {
  std::vector<ItlTailPoint> out;
  const double load_ms = model_itl_ms - d1_ms;
  if (!(count > 0) || !(load_ms >= 1) || !std::isfinite(load_ms) || !std::isfinite(count)) return out;
  const std::size_t n = std::min(upper_bounds_ms.size(), cumulative.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double bound = upper_bounds_ms[i];
    if (!(bound > d1_ms) || !std::isfinite(bound) || !std::isfinite(cumulative[i])) continue;
    out.push_back({std::log((bound - d1_ms) / load_ms), std::clamp(cumulative[i], 0.0, count), count});
  }
  return out;
}

}  // namespace

std::optional<ServedItl> served_request_itl(const VariantState& variant, double max_sample_age_s,
                                            double warm_up_s) {
  ServedItl out;
  double rate = 0;
  int pods = 0;
  for (const PodMetrics* p : ready_pods(variant)) {
    const WindowHistogram& h = p->request_itl;
    if (!(p->sample_age_s <= max_sample_age_s) || p->seconds_since_start < warm_up_s) continue;
    if (!(std::isfinite(p->arrival_rate_rps) && p->arrival_rate_rps > 0)) continue;
    if (!(p->queue_length <= 1)) return std::nullopt;
    if (h.empty() || !std::isfinite(h.count) || !std::isfinite(h.sum_ms) || h.cumulative.size() != h.upper_bounds_ms.size())
      continue;
    if (pods == 0) {
      out.requests = h;
    } else {
      if (h.upper_bounds_ms != out.requests.upper_bounds_ms) continue;
      for (std::size_t i = 0; i < h.cumulative.size(); ++i) out.requests.cumulative[i] += h.cumulative[i];
      out.requests.count += h.count;
      out.requests.sum_ms += h.sum_ms;
    }
    rate += p->arrival_rate_rps;
    ++pods;
  }
  if (pods == 0) return std::nullopt;
  out.rate_per_replica_rps = rate / pods;
  return out;
}

std::vector<ItlTailPoint> itl_tail_points(const WindowHistogram& window, double d1_ms, double model_itl_ms) {
  return points_of(window.upper_bounds_ms, window.cumulative, window.count, d1_ms, model_itl_ms);
}

ItlWindow make_itl_window(const std::vector<double>& upper_bounds_ms, double d1_ms, double model_itl_ms,
                          double requests, std::vector<double> below) {
  ItlWindow w{d1_ms, model_itl_ms, requests, std::move(below), {}, std::nullopt};
  w.points = std::make_shared<const std::vector<ItlTailPoint>>(points_of(upper_bounds_ms, w.below, requests, d1_ms, model_itl_ms));
  return w;
}

void add_itl_window(ItlEvidence& evidence, const WindowHistogram& window, double d1_ms, double model_itl_ms,
                    std::size_t max_windows) {
  std::vector<double> below(window.upper_bounds_ms.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < below.size() && i < window.cumulative.size(); ++i) {
    if (std::isfinite(window.cumulative[i])) below[i] = std::clamp(window.cumulative[i], 0.0, window.count);
  }
  ItlWindow w = make_itl_window(window.upper_bounds_ms, d1_ms, model_itl_ms, window.count, std::move(below));
  if (w.points->empty()) return;
  if (window.upper_bounds_ms != evidence.upper_bounds_ms) {
    evidence.windows.clear();
    evidence.upper_bounds_ms = window.upper_bounds_ms;
  }
  // The oldest leave before the newest comes, so that a full history keeps its storage
  // instead of growing it for a moment.
  auto& windows = evidence.windows;
  while (!windows.empty() && windows.size() >= max_windows) windows.pop_front();
  if (max_windows > 0) windows.push_back(std::move(w));
}

std::optional<ItlSpread> fit_itl_spread(const std::vector<std::vector<ItlTailPoint>>& windows) {
  const Windows spans(windows.begin(), windows.end());
  const auto [requests, split] = evidence_of(spans);
  if (requests < kMinSpreadRequests || !split) return std::nullopt;
  return spread_at(ascend(spans, kColdStart, terms_of(spans, kColdStart)).optimum, requests);
}

std::optional<ItlSpread> refit_itl_spread(ItlEvidence& evidence) {
  Windows spans;
  spans.reserve(evidence.windows.size());
  for (ItlWindow& w : evidence.windows) {
    // A window read back from a snapshot may come without its points (state_msgpack.cpp
    // leaves them to the first fit that needs them): derived here exactly as
    // make_itl_window derives them.
    if (!w.points) {
      w.points = std::make_shared<const std::vector<ItlTailPoint>>(
          points_of(evidence.upper_bounds_ms, w.below, w.requests, w.d1_ms, w.model_itl_ms));
    }
    spans.emplace_back(*w.points);
  }
  // evidence_of(spans), from what each window keeps where it can: every point of a
  // window counts all of its requests (points_of), so its requests are the window's own
  // figure, and the search for a bound with requests on both sides stops at the first.
  // With a fleet's windows out of cache, reading each window's points for these was
  // most of a refit's time outside the fit.
  double requests = 0;
  bool split = false;
  for (const ItlWindow& w : evidence.windows) {
    if (w.points->empty()) continue;
    requests += w.requests;
    for (const ItlTailPoint& p : *w.points) {
      if (split) break;
      split = p.total > 0 && p.below > 0 && p.below < p.total;
    }
  }
  if (requests < kMinSpreadRequests || !split) return std::nullopt;
  std::optional<Ascent> ascent;
  if (evidence.start) {
    std::vector<ItlFitTerms> terms;
    terms.reserve(evidence.windows.size());
    for (const ItlWindow& w : evidence.windows) terms.push_back(w.terms_at_start ? *w.terms_at_start : terms_of(*w.points, *evidence.start));
    ascent = ascend(spans, *evidence.start, std::move(terms));
    // A start the optimum cannot be reached from is left for the fit from scratch,
    // whose answer it then is, as before warm starts.
    if (!ascent->converged) ascent.reset();
  }
  if (!ascent) ascent = ascend(spans, kColdStart, terms_of(spans, kColdStart));
  auto spread = spread_at(ascent->optimum, requests);
  if (spread) {
    evidence.start = ascent->evaluated;
    for (std::size_t i = 0; i < evidence.windows.size(); ++i) evidence.windows[i].terms_at_start = ascent->terms[i];
  } else {
    evidence.start.reset();
    for (ItlWindow& w : evidence.windows) w.terms_at_start.reset();
  }
  return spread;
}

double normal_upper_quantile(double p) {
  // P(Z > z) falls with z: bisect [-40, 40] 80 times. Once the midpoint rounds to an end
  // (lo and hi adjacent doubles, or equal), that step leaves them where every later step
  // would: the same midpoint, the same side, or lo == hi. So the bisection stops there,
  // with the bits all 80 steps give, after about 60 (each an erfc; `hybrid` asks this
  // once per variant and tick).
  double lo = -40, hi = 40;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool at_end = mid == lo || mid == hi;
    (normal_sf(mid) > p ? lo : hi) = mid;
    if (at_end) break;
  }
  return 0.5 * (lo + hi);
}

double itl_sizing_target_ms(const ItlSpread& spread, double target_ms, double d1_ms, double p) {
  return d1_ms + (target_ms - d1_ms) * std::exp(-(spread.location + normal_upper_quantile(p) * spread.scale));
}

void to_json(nlohmann::json& j, const ItlTailPoint& p) { j = {p.position, p.below, p.total}; }

void from_json(const nlohmann::json& j, ItlTailPoint& p) {
  if (!j.is_array() || j.size() != 3) throw std::invalid_argument("an ITL tail point must be [position, below, total], got " + j.dump());
  p = {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
}

}  // namespace capstan
