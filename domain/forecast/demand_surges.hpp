// Capacity held for rises of the traffic that capacity could not follow (`hybrid`,
// docs/policies.md step 13): what a model's own traffic has done within the horizon a
// new replica needs, not what a forecaster predicts.
//
// A surge is a tick whose request rate rose above the peak of the scale-down cooldown
// before it, the rate the fleet was holding capacity for, by more than a tick's Poisson
// noise; a model's first traffic is a rise from nothing. Consecutive ticks of one rise
// make one surge. Each surge is remembered for a cooldown plus a horizon after its last
// tick, and its rate is held while it is: a replica released a cooldown after a burst is
// back only a horizon after the next one has come, so bursts that recur within a
// cooldown plus a horizon keep their capacity between them, as a static fleet sized for
// them would, and give it back a cooldown plus a horizon after they stop. A step or a
// ramp to a new level is a surge too, but the level it leaves holds more than it does.
// Judged first a horizon late, against the peak kept when a replica had to be asked for,
// and held only once a second surge had come, the first bursts of `burst-recur` met a
// fleet released between them (0.919 attainment, limit 0.95).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "domain/forecast/demand_memory.hpp"

namespace capstan {

struct DemandSurge {
  double start_s = 0;   // its first tick
  double end_s = 0;     // its last tick
  double from_rps = 0;  // the peak of the cooldown before it: what capacity was held for
  double to_rps = 0;    // the highest rate it reached
  bool recurs = false;  // seen within a cooldown plus a horizon of the surge before it

  bool operator==(const DemandSurge&) const = default;
};

using DemandSurges = std::vector<DemandSurge>;

// How long a history peak_demand must retain for surge_hold: the cooldown before this
// tick, and a tick.
inline double surge_history_s(double keep_s, double interval_s) { return keep_s + interval_s; }

// Records the surge (if any) at this tick, the newest of `recent` (peak_demand with
// surge_history_s's retention records it first), forgets surges that ended more than a
// cooldown plus a horizon ago, and returns the highest rate a remembered surge reached (0
// when none is). noise_z is how many standard deviations of a tick's Poisson count a rise
// must exceed. `recurs` records whether a surge came within a cooldown plus a horizon of
// the one before, for whoever reads the state; the hold does not depend on it.
inline double surge_hold(DemandSurges& surges, const DemandHistory& recent, double now_s, double interval_s,
                         double horizon_s, double keep_s, double noise_z) {
  const double window_s = keep_s + horizon_s;
  if (interval_s > 0 && !recent.empty() && recent.back().first == now_s) {
    const double rate = recent.back().second;
    double kept = 0;  // what the fleet held capacity for before this tick
    for (const auto& [t, rps] : recent) {
      if (t < now_s && t >= now_s - keep_s) kept = std::max(kept, rps);
    }
    const double noise = noise_z * std::sqrt(rate * interval_s) / interval_s;
    if (rate - kept > noise) {
      if (!surges.empty() && surges.back().end_s >= now_s - 1.5 * interval_s) {
        DemandSurge& last = surges.back();
        last.end_s = now_s;
        last.to_rps = std::max(last.to_rps, rate);
      } else {
        const bool recurs = !surges.empty() && surges.back().end_s >= now_s - window_s;
        surges.push_back({now_s, now_s, kept, rate, recurs});
      }
    }
  }
  std::erase_if(surges, [&](const DemandSurge& s) { return s.end_s < now_s - window_s; });
  double hold = 0;
  for (const DemandSurge& s : surges) hold = std::max(hold, s.to_rps);
  return hold;
}

}  // namespace capstan
