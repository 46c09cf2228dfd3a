// Capacity held for surges that recur faster than capacity can follow them (`hybrid`,
// docs/policies.md): what a model's own traffic has done within the horizon a new replica
// needs, not what a forecaster predicts.
//
// Each tick looks back at the tick one horizon ago (a cold start plus a tick): the
// capacity kept then was sized for the peak of the scale-down cooldown before it. When
// the traffic within the horizon after it rose above that peak by more than a tick's
// Poisson noise, a replica started then would have arrived just in time, and one started
// later too late: that is a surge. Consecutive ticks of one rise make one surge.
//
// One surge (a step, a ramp to a new level) teaches nothing about the next: the capacity
// it needs is bought and then kept by the peak it leaves. A surge seen within a
// cooldown plus a horizon of the one before recurs: the traffic's bursts come back before
// a replica released after one could be back for the next. While a recurring surge is
// remembered, the fleet holds the highest rate the surges reached, as a static fleet
// sized for the bursts would, and releases it when the surges stop recurring, a cooldown
// plus a horizon after the last was seen. The SLO's tail probability does not enter:
// with at most a few dozen ticks in the window, its quantile is the highest surge.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "domain/forecast/demand_memory.hpp"

namespace capstan {

struct DemandSurge {
  double start_s = 0;   // the earliest tick it was seen from
  double end_s = 0;     // the latest
  double from_rps = 0;  // the peak kept at its start
  double to_rps = 0;    // the highest rate observed within a horizon after it
  bool recurs = false;  // seen within a cooldown plus a horizon of the surge before it

  bool operator==(const DemandSurge&) const = default;
};

using DemandSurges = std::vector<DemandSurge>;

// How long a history peak_demand must retain for surge_hold: the cooldown before the
// tick one horizon ago, and the horizon since.
inline double surge_history_s(double keep_s, double horizon_s, double interval_s) {
  return keep_s + horizon_s + interval_s;
}

// Records the surge (if any) from the tick one horizon ago, forgets surges seen more than
// a cooldown plus a horizon ago, and returns the rate to hold: the highest rate the
// remembered surges reached while one of them recurs, else 0. `recent` holds the observed
// rates of at least surge_history_s (peak_demand with that retention); noise_z is how
// many standard deviations of a tick's Poisson count a rise must exceed.
inline double surge_hold(DemandSurges& surges, const DemandHistory& recent, double now_s, double interval_s,
                         double horizon_s, double keep_s, double noise_z) {
  if (interval_s > 0 && horizon_s > 0) {
    // The newest tick at least a horizon old is where a replica had to be asked for.
    const auto origin = std::find_if(recent.rbegin(), recent.rend(),
                                     [&](const auto& p) { return p.first <= now_s - horizon_s; });
    if (origin != recent.rend()) {
      const double t0 = origin->first;
      double kept = 0, reached = 0;
      for (const auto& [t, rps] : recent) {
        if (t > t0) {
          reached = std::max(reached, rps);
        } else if (t >= t0 - keep_s) {
          kept = std::max(kept, rps);
        }
      }
      const double noise = noise_z * std::sqrt(reached * interval_s) / interval_s;
      if (reached - kept > noise) {
        if (!surges.empty() && surges.back().end_s >= t0 - 1.5 * interval_s) {
          DemandSurge& last = surges.back();
          last.end_s = std::max(last.end_s, t0);
          last.from_rps = std::min(last.from_rps, kept);
          last.to_rps = std::max(last.to_rps, reached);
        } else {
          surges.push_back({t0, t0, kept, reached, !surges.empty()});
        }
      }
    }
  }
  // A surge is seen a horizon after its end: surges recur when each is seen within a
  // cooldown plus a horizon of the one before.
  const double window_s = keep_s + horizon_s;
  std::erase_if(surges, [&](const DemandSurge& s) { return s.end_s + horizon_s < now_s - window_s; });
  if (std::none_of(surges.begin(), surges.end(), [](const DemandSurge& s) { return s.recurs; })) return 0;
  double hold = 0;
  for (const DemandSurge& s : surges) hold = std::max(hold, s.to_rps);
  return hold;
}

}  // namespace capstan
