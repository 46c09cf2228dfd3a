// The queueing a fleet already has, as time (issue 9, "burst": the failure users report
// is a planner whose TTFT estimate stays at a few hundred ms while its queue holds
// minutes of work). Requests waiting in the servers and in the router's upstream queue
// drain at the fleet's service rate, so a new request expects to wait about
// (waiting + upstream) / service rate before its own prefill starts.
#pragma once

#include <limits>

namespace capstan {

// Expected extra wait in ms; 0 when nothing waits. A zero service rate with requests
// waiting (nothing ready) is an unbounded wait, reported as +inf.
inline double observed_wait_ms(double waiting_requests, double upstream_queue,
                               double service_rate_rps) {
  const double queued = (waiting_requests > 0 ? waiting_requests : 0) +
                        (upstream_queue > 0 ? upstream_queue : 0);
  if (queued == 0) return 0;
  if (!(service_rate_rps > 0)) return std::numeric_limits<double>::infinity();
  return queued / service_rate_rps * 1000.0;
}

}  // namespace capstan
