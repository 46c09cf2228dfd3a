// `hybrid`'s first response before anything is learned (issue 22, item 4, "a safe
// start"; docs/policies.md, `hybrid` step 7). With no capacity learned yet, WVA's
// saturation rule decides, and it adds one replica per start-up: on `cold-fleet`
// (2,000/300-token prompts on two warm replicas) it went 2 -> 3 -> 4 -> 5 over ten
// minutes while 1,400 requests queued. Measured latency and queue size the response
// instead, with no parameter: a variant whose warm pods miss the SLO or hold a queue
// grows to the replicas that carry the arrivals and drain the backlog at the rate its
// replicas were measured to complete requests (Little's law). A saturated replica
// completes at least what it serves within the SLO, so this is a floor under what is
// needed, reached again at the next tick once the replicas it asked for are counted.
#pragma once

#include "domain/policies/hybrid_correction.hpp"

namespace capstan {

// What measured latency and queue alone ask of a variant.
struct MeasuredNeed {
  int replicas = 0;            // the count to hold or grow to (never below current)
  bool missed = false;         // the SLO is missed or requests queue
  double completing_rps = 0;   // per replica, measured
  double demand_rps = 0;       // arrivals + the backlog drained over drain_s
};

// `rate_rps` and `backlog` are the variant's share of the model's arrivals and of the
// requests waiting; `drain_s` the time the backlog may take. Holds `current` when the
// SLO is met or nothing completes to size by.
MeasuredNeed measured_need(const LatencyVerdict& verdict, int current, double rate_rps, double backlog,
                           double drain_s);

}  // namespace capstan
