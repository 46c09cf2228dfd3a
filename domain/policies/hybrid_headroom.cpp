#include "domain/policies/hybrid_headroom.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/variant_state.hpp"
#include "domain/model/served_capacity.hpp"

namespace capstan {

MissCount count_itl_misses(const ModelTickInput& model, const SloTargets& slo, double max_sample_age_s) {
  MissCount count;
  if (!(slo.itl_ms > 0)) return count;
  for (const VariantTickInput& v : model.variants) {
    for (const PodMetrics* p : ready_pods(v.state)) {
      const WindowHistogram& h = p->request_itl;
      if (!(p->sample_age_s <= max_sample_age_s)) continue;
      const auto over = share_over(h, slo.itl_ms);  // none: nothing is known of this pod
      if (!over) continue;
      count.requests += h.count;
      count.missed += std::clamp(h.count * *over, 0.0, h.count);
    }
  }
  return count;
}

bool valid_counts(const MissHeadroom& h) {
  return std::isfinite(h.requests) && std::isfinite(h.spent_until_s) && h.missed >= 0 && h.missed <= h.requests &&
         h.spent_until_s >= 0;
}

double budget_burn(const MissHeadroom& headroom, double tail_probability) {
  return headroom.requests > 0 && tail_probability > 0 ? headroom.missed / headroom.requests / tail_probability : 0;
}

MissHeadroom next_headroom(const MissHeadroom& previous, const MissCount& count, double tail_probability,
                           double now_s, double interval_s) {
  MissHeadroom next = previous;
  if (!(interval_s > 0) || !(tail_probability > 0)) return next;
  const double keep = std::exp(-interval_s / kBurnMemoryS);
  next.requests = previous.requests * keep + count.requests;
  next.missed = previous.missed * keep + count.missed;
  // Nothing served in the memory: nothing is known of the budget, and the headroom holds.
  if (!(next.requests >= 1)) return next;
  const double burn = budget_burn(next, tail_probability);
  if (budget_burn(previous, tail_probability) > 1 && burn <= 1) next.spent_until_s = now_s;
  const bool recurs = next.spent_until_s > 0 && now_s - next.spent_until_s <= kRecurS;
  // Raised while an episode that recurs spends the budget; between the target and 1
  // (an episode's tail, or a spend within the budget) held; given back below.
  double per_hour = -kHeadroomRelease * std::max(0.0, kBurnTarget - burn) / kBurnTarget;
  if (burn > 1 && recurs) per_hour = kHeadroomRaise * (std::min(kMaxBurn, burn) - kBurnTarget);
  next.extra = std::clamp(previous.extra + per_hour * interval_s / 3600, 0.0, kMaxExtraHeadroom);
  return next;
}

}  // namespace capstan
