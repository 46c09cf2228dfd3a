#include "domain/policies/hybrid_safe_start.hpp"

#include <algorithm>
#include <cmath>

#include "domain/forecast/demand_memory.hpp"

namespace capstan {

MeasuredNeed measured_need(const LatencyVerdict& verdict, int current, double rate_rps, double backlog,
                           double drain_s) {
  MeasuredNeed need{current, verdict.missed || verdict.queued, verdict.completing_rps, 0};
  need.demand_rps = std::max(0.0, rate_rps) + (drain_s > 0 ? std::max(0.0, backlog) / drain_s : 0.0);
  if (!need.missed || !(need.completing_rps > 0)) return need;
  // The release margin keeps the count from settling exactly at saturation.
  const double replicas = std::ceil(need.demand_rps * (1 + kSpareMargin) / need.completing_rps);
  if (std::isfinite(replicas)) need.replicas = std::max(current, static_cast<int>(replicas));
  return need;
}

}  // namespace capstan
