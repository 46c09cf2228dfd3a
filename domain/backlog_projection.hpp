// How big a backlog will be when new capacity can land (issue 9, "burst" and
// "slow-start"): a fluid model of the queue over the next cold start. Requests arrive
// at the observed rate; the ready replicas serve at their saturated rate while work
// waits; each replica still starting adds its rate when it becomes ready. What is left
// waiting at the horizon is what replicas asked for now would have to drain, so the
// first response to a burst covers the backlog the cold start will build, and later
// ticks, which see the replicas already starting as coming capacity, do not ask again
// for the same backlog.
#pragma once

#include <vector>

namespace capstan {

struct StartingCapacity {
  double ready_in_s = 0;  // from now, >= 0
  double rate_rps = 0;    // what it serves once ready
};

struct BacklogOutlook {
  double backlog_now = 0;       // requests waiting (servers + upstream queue)
  double arrival_rps = 0;       // observed
  double ready_rate_rps = 0;    // what the ready replicas serve while work waits
  std::vector<StartingCapacity> starting;
};

// Requests still waiting horizon_s from now (>= 0).
double projected_backlog(const BacklogOutlook& outlook, double horizon_s);

}  // namespace capstan
