// Where the daemon's observations come from (DESIGN.md "Interfaces"): once per tick the
// collector asks its source for what every model's pods reported. The embedded
// simulated fleet implements it now (simulated_fleet.hpp); Prometheus and /metrics
// scraping implement the same interface in their own issue.
//
// A source may block (a scrape over the network): the collector runs it on a detached
// actor, never on the scheduler's threads.
#pragma once

#include "domain/core/result.hpp"
#include "domain/tick/tick_input.hpp"

namespace capstan::fleet {

struct Observed {
  TickInput input;
  // false: the source has nothing more to show (a simulated trace that is over and a
  // fleet that has drained); the daemon stops after this tick when it runs in virtual
  // time. A live source is always true.
  bool more = true;
  // true: decide this tick, then stop (the simulated trace has drained past its limit).
  bool last = false;
};

class MetricsSource {
 public:
  virtual ~MetricsSource() = default;
  // What every model's pods reported over the window that ends at `time.now_s`, with the
  // forward passes only of the models `reads_forward_passes` answers true for (the
  // daemon's policy: TickPolicy::reads_forward_passes); the others' are never built, so
  // no tick holds them. Empty: every model's.
  virtual Result<Observed> observe(const TickTime& time, const ReadsForwardPasses& reads_forward_passes) = 0;
};

}  // namespace capstan::fleet
