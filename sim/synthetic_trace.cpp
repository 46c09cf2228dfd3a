// Thinning-based synthetic arrival generators; see synthetic_trace.hpp.
#include "sim/synthetic_trace.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim {

RateCurve poisson_rate(double rate_rps) {
  return {[rate_rps](double) { return rate_rps; }, rate_rps};
}

RateCurve diurnal_rate(double mean_rps, double amplitude, double period_s, double phase_rad) {
  return {[=](double t) {
            return std::max(0.0, mean_rps * (1.0 + amplitude * std::sin(2.0 * M_PI * t / period_s + phase_rad)));
          },
          mean_rps * (1.0 + std::abs(amplitude))};
}

RateCurve step_rate(std::vector<std::pair<double, double>> steps) {
  double max_rate = 0;
  for (const auto& s : steps) max_rate = std::max(max_rate, s.second);
  return {[steps](double t) {
            double rate = 0;
            for (const auto& [start, r] : steps)
              if (t >= start) rate = r;
            return rate;
          },
          max_rate};
}

RateCurve interpolated_rate(std::vector<std::pair<double, double>> points) {
  double max_rate = 0;
  for (const auto& p : points) max_rate = std::max(max_rate, p.second);
  return {[points](double t) {
            if (points.empty()) return 0.0;
            if (t <= points.front().first) return points.front().second;
            auto hi = std::upper_bound(points.begin(), points.end(), t,
                                       [](double x, const std::pair<double, double>& p) { return x < p.first; });
            if (hi == points.end()) return points.back().second;
            const auto lo = hi - 1;
            return lo->second + (hi->second - lo->second) * (t - lo->first) / (hi->first - lo->first);
          },
          max_rate};
}

RateCurve burst_rate(double base_rps, double burst_rps, double period_s, double burst_s) {
  return {[=](double t) { return std::fmod(t, period_s) < burst_s ? base_rps + burst_rps : base_rps; },
          base_rps + burst_rps};
}

SyntheticTrace::SyntheticTrace(RateCurve curve, double duration_s,
                               std::shared_ptr<LengthSource> lengths, std::uint64_t seed)
    : curve_(std::move(curve)), duration_s_(duration_s), lengths_(std::move(lengths)), rng_(seed) {}

Result<std::optional<Request>> SyntheticTrace::next() {
  if (curve_.max_rate_rps <= 0) return std::optional<Request>{};
  for (;;) {
    t_s_ += rng_.exponential(curve_.max_rate_rps);
    if (t_s_ >= duration_s_) return std::optional<Request>{};
    if (rng_.uniform() * curve_.max_rate_rps < curve_.rate_rps(t_s_)) break;
  }
  Request r;
  r.arrival_s = t_s_;
  const auto l = lengths_->draw(rng_);
  r.input_tokens = l.input_tokens;
  r.output_tokens = l.output_tokens;
  return std::optional<Request>{std::move(r)};
}

}  // namespace capstan::sim
