#include "domain/model/backlog_projection.hpp"

#include <algorithm>
#include <limits>

namespace capstan {

double projected_backlog(const BacklogOutlook& o, double horizon_s) {
  std::vector<StartingCapacity> starting = o.starting;
  std::sort(starting.begin(), starting.end(),
            [](const StartingCapacity& a, const StartingCapacity& b) { return a.ready_in_s < b.ready_in_s; });
  double backlog = std::max(0.0, o.backlog_now);
  double rate = std::max(0.0, o.ready_rate_rps);
  double t = 0;
  // What is waiting now was measured and stands; growth stops at the patience bound.
  const double most = o.patience_s > 0 ? std::max(backlog, std::max(0.0, o.arrival_rps) * o.patience_s)
                                       : std::numeric_limits<double>::infinity();
  // Between two arrivals of capacity the backlog moves linearly, stops at zero and
  // holds at what patient clients can keep waiting.
  for (const StartingCapacity& s : starting) {
    const double until = std::clamp(s.ready_in_s, t, horizon_s);
    backlog = std::clamp(backlog + (o.arrival_rps - rate) * (until - t), 0.0, most);
    t = until;
    if (t >= horizon_s) break;
    rate += std::max(0.0, s.rate_rps);
  }
  if (t < horizon_s) backlog = std::clamp(backlog + (o.arrival_rps - rate) * (horizon_s - t), 0.0, most);
  return backlog;
}

BacklogDemand backlog_demand(const BacklogOutlook& outlook, int ready_replicas, double forecast_rps,
                             double horizon_s, double interval_s) {
  constexpr double kDrainTicks = 2;
  BacklogDemand out;
  out.queued = outlook.backlog_now > std::max(1, ready_replicas);
  out.backlog_ahead = out.queued ? projected_backlog(outlook, horizon_s) : outlook.backlog_now;
  const double drain_s = out.queued ? std::max(kDrainTicks * interval_s, horizon_s) : kDrainTicks * interval_s;
  out.demand_rps = std::max(forecast_rps, outlook.arrival_rps + out.backlog_ahead / drain_s);
  return out;
}

}  // namespace capstan
