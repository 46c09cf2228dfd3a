// Where a restarted daemon picks up (issue 21, "Restart that resumes"): the newest
// snapshot of the fleet and its models, then the fold of every tick recorded after it.
// Folding re-runs the recorded inputs (observations, configuration, tick times) through
// the one tick driver (domain/tick/tick_driver.hpp), so the EKF parameters and
// covariances, forecasters, learned cold starts, cooldown clocks and last decisions
// continue bit for bit; a recomputed decision that differs from the recorded one is
// counted, as `replay verify` does.
//
// A tick's decision batch is atomic (one WriteBatch), so a crash leaves either the
// whole tick or none of it; its actuation batch may be missing, and the first tick
// after the restart asserts every target again.
#pragma once

#include <optional>
#include <string>

#include "actors/fleet_actor.hpp"
#include "storage/event_store.hpp"

namespace capstan::actors {

struct Resumed {
  FleetStart start;
  std::optional<ConfigUpdate> config;  // the last configuration recorded, if any
  double last_now_s = 0;               // the last tick's time; 0 before any
  std::uint64_t folded_ticks = 0;      // ticks re-run after the snapshot
  std::uint64_t snapshot_seq = 0;      // 0 when there was none
  std::uint64_t mismatched_decisions = 0;  // recomputed != recorded (0 unless something is broken)
};

// Errors when the store holds another policy's state, or a record cannot be read.
Result<Resumed> resume(const storage::EventStore& store, const TickPolicy& policy);

// The state of each model at the end of a fold, as model actors start from it.
std::map<ModelKey, ModelSnapshot> model_snapshots(const std::string& policy, const FleetMemory& memory);

}  // namespace capstan::actors
