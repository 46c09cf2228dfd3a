#include "domain/served_capacity.hpp"

#include <cmath>

namespace capstan {
namespace {

bool within(double observed_ms, double target_ms) {
  return target_ms <= 0 || (std::isfinite(observed_ms) && observed_ms >= 0 &&
                            observed_ms <= kServedLatencyShare * target_ms);
}

}  // namespace

std::optional<double> served_within_slo_rps(const VariantState& variant, const SloTargets& slo,
                                            double max_sample_age_s, double warm_up_s) {
  double rate = 0;
  int pods = 0;
  for (const PodMetrics* p : ready_pods(variant)) {
    if (!(p->sample_age_s <= max_sample_age_s)) return std::nullopt;
    if (p->seconds_since_start < warm_up_s) continue;
    if (!(std::isfinite(p->arrival_rate_rps) && p->arrival_rate_rps > 0)) return std::nullopt;
    if (!(p->queue_length <= 1) || !within(p->avg_itl_ms, slo.itl_ms) || !within(p->avg_ttft_ms, slo.ttft_ms))
      return std::nullopt;
    rate += p->arrival_rate_rps;
    ++pods;
  }
  if (pods == 0) return std::nullopt;
  return rate / pods;
}

}  // namespace capstan
