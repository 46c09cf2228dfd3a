#include "domain/model/itl_tail.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace capstan {
namespace {

// P(Z <= x) and P(Z > x), each accurate far into its own tail.
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double normal_sf(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }
double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi); }

constexpr double kTiny = 1e-300;
constexpr double kMinScale = 0.005, kMaxScale = 3;

// P(ITL <= bound) = Phi(a + b x); b = 1 / scale, a = -location / scale.
double log_likelihood(const std::vector<ItlTailPoint>& points, double a, double b) {
  double sum = 0;
  for (const ItlTailPoint& p : points) {
    const double eta = a + b * p.position;
    sum += p.below * std::log(std::max(normal_cdf(eta), kTiny)) +
           (p.total - p.below) * std::log(std::max(normal_sf(eta), kTiny));
  }
  return sum;
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
  std::vector<ItlTailPoint> out;
  const double load_ms = model_itl_ms - d1_ms;
  if (window.empty() || !(load_ms >= 1) || !std::isfinite(load_ms) || !std::isfinite(window.count)) return out;
  const std::size_t n = std::min(window.upper_bounds_ms.size(), window.cumulative.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double bound = window.upper_bounds_ms[i];
    if (!(bound > d1_ms) || !std::isfinite(bound) || !std::isfinite(window.cumulative[i])) continue;
    out.push_back({std::log((bound - d1_ms) / load_ms), std::clamp(window.cumulative[i], 0.0, window.count),
                   window.count});
  }
  return out;
}

std::optional<ItlSpread> fit_itl_spread(const std::vector<std::vector<ItlTailPoint>>& windows) {
  std::vector<ItlTailPoint> points;
  double requests = 0;
  bool split = false;  // some bound has requests on both sides
  for (const auto& w : windows) {
    if (w.empty()) continue;
    requests += w.front().total;
    for (const ItlTailPoint& p : w) {
      if (!(p.total > 0)) continue;
      points.push_back(p);
      split = split || (p.below > 0 && p.below < p.total);
    }
  }
  if (requests < kMinSpreadRequests || !split) return std::nullopt;

  // Fisher scoring from scale 0.3 at location 0, halving a step that lowers the
  // likelihood.
  double a = 0, b = 1 / 0.3;
  double ll = log_likelihood(points, a, b);
  for (int iter = 0; iter < 100; ++iter) {
    double g0 = 0, g1 = 0, i00 = 0, i01 = 0, i11 = 0;
    for (const ItlTailPoint& p : points) {
      const double eta = a + b * p.position;
      const double cdf = std::max(normal_cdf(eta), kTiny), sf = std::max(normal_sf(eta), kTiny);
      const double pdf = normal_pdf(eta);
      const double g = p.below * pdf / cdf - (p.total - p.below) * pdf / sf;
      const double w = p.total * pdf * pdf / (cdf * sf);
      g0 += g;
      g1 += g * p.position;
      i00 += w;
      i01 += w * p.position;
      i11 += w * p.position * p.position;
    }
    const double det = i00 * i11 - i01 * i01;
    if (!(std::abs(det) > 1e-12)) return std::nullopt;
    double da = (i11 * g0 - i01 * g1) / det, db = (i00 * g1 - i01 * g0) / det;
    double next = ll;
    for (int half = 0; half < 30; ++half) {
      next = log_likelihood(points, a + da, b + db);
      if (b + db > 0 && next >= ll - 1e-12) break;
      da /= 2;
      db /= 2;
    }
    if (!(b + db > 0) || next < ll - 1e-12) break;
    a += da;
    b += db;
    const bool converged = std::abs(da) < 1e-9 * (1 + std::abs(a)) && std::abs(db) < 1e-9 * (1 + std::abs(b));
    ll = next;
    if (converged) break;
  }
  const double scale = 1 / b;
  if (!(scale >= kMinScale && scale <= kMaxScale) || !std::isfinite(a)) return std::nullopt;
  return ItlSpread{-a * scale, scale, requests};
}

double normal_upper_quantile(double p) {
  // P(Z > z) falls with z: bisect [-40, 40] 80 times.
  double lo = -40, hi = 40;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_sf(mid) > p ? lo : hi) = mid;
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
