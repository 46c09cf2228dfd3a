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
  // How long a client waits before it gives up (0: unknown, nobody gives up). A FIFO
  // queue whose clients leave after patience_s holds at most the arrivals of the last
  // patience_s: a longer backlog is requests already lost, not work to drain.
  double patience_s = 0;
};

// Requests still waiting horizon_s from now (>= 0, at most arrival_rps x patience_s).
double projected_backlog(const BacklogOutlook& outlook, double horizon_s);

// The demand a backlog adds to the observed rate (outlook.arrival_rps), for a model or
// one role of a split:
//   demand = max(forecast_rps, arrival_rps + backlog_ahead / drain_s).
// Only a queue that is there (more than one request per ready replica) is projected to
// the horizon: with nothing waiting, a small excess of arrivals over the conservative
// SLO capacity is no sign of saturation. What a cold start builds up is drained over
// the next one: replicas asked for now land with it, and sizing them to clear it in two
// ticks would buy a fleet for the worst second of the burst. A backlog that is not
// projected is drained within two ticks.
struct BacklogDemand {
  bool queued = false;       // the backlog was projected
  double backlog_ahead = 0;  // requests to drain: projected to the horizon, or as now
  double demand_rps = 0;
};
BacklogDemand backlog_demand(const BacklogOutlook& outlook, int ready_replicas, double forecast_rps,
                             double horizon_s, double interval_s);

}  // namespace capstan
