// How much capacity one tick may release (issue 22, "a limit cycle on long context":
// `hybrid` went 96 -> 24 replicas in one tick on a capacity estimate measured on an
// over-provisioned fleet, and back to 94 within six minutes). A fraction of what the
// fleet holds, not a count, so a large fleet comes down at the same pace as a small
// one; at least one replica of any variant, so a small fleet still comes down; and
// everything when the model is idle, where nothing can be wrong with releasing it.
#pragma once

#include <algorithm>

#include "domain/model/capacity_signal.hpp"

namespace capstan {

// Half, not less: each release restarts the enforcer's scale-down cooldown, so a quarter
// held the `burst` scenario's post-burst fleet for three cooldowns (12.5 -> 18.2
// GPU-hours over seeds 1-8; a half, 15.6).
inline constexpr double kReleaseFraction = 0.5;  // of the supply, per tick

// The spare capacity `s` may release this tick.
inline double bounded_release(const CapacitySignal& s, bool idle) {
  if (idle) return s.spare;
  double one_replica = 0;
  for (const VariantSupply& v : s.variants) {
    if (v.current_replicas > 0) one_replica = std::max(one_replica, v.per_replica_capacity);
  }
  return std::min(s.spare, std::max(kReleaseFraction * s.supply, one_replica));
}

}  // namespace capstan
