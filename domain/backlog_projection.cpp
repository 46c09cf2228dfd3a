#include "domain/backlog_projection.hpp"

#include <algorithm>

namespace capstan {

double projected_backlog(const BacklogOutlook& o, double horizon_s) {
  std::vector<StartingCapacity> starting = o.starting;
  std::sort(starting.begin(), starting.end(),
            [](const StartingCapacity& a, const StartingCapacity& b) { return a.ready_in_s < b.ready_in_s; });
  double backlog = std::max(0.0, o.backlog_now);
  double rate = std::max(0.0, o.ready_rate_rps);
  double t = 0;
  // Between two arrivals of capacity the backlog moves linearly and stops at zero.
  for (const StartingCapacity& s : starting) {
    const double until = std::clamp(s.ready_in_s, t, horizon_s);
    backlog = std::max(0.0, backlog + (o.arrival_rps - rate) * (until - t));
    t = until;
    if (t >= horizon_s) break;
    rate += std::max(0.0, s.rate_rps);
  }
  if (t < horizon_s) backlog = std::max(0.0, backlog + (o.arrival_rps - rate) * (horizon_s - t));
  return backlog;
}

}  // namespace capstan
