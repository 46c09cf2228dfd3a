// Where a restarted daemon picks up (issue 21, "Restart that resumes"): the newest
// snapshot of the fleet and its models, then the fold of every tick recorded after it.
// Folding re-runs the recorded inputs (observations, configuration, tick times) through
// the one tick driver (domain/tick/tick_driver.hpp), so the EKF parameters and
// covariances, forecasters, learned cold starts, cooldown clocks and last decisions
// continue bit for bit; a recomputed decision that differs from the recorded one is
// counted, as `replay verify` does.
//
// The snapshot reader and the fold are public because `capstan replay` (replay/) runs
// the very same fold over a range of the history: verify compares what it recomputes,
// what-if folds under another configuration.
//
// A tick's decision batch is atomic (one WriteBatch), so a crash leaves either the
// whole tick or none of it; its actuation batch may be missing, and the first tick
// after the restart asserts every target again.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "actors/fleet_actor.hpp"
#include "domain/tick/tick_driver.hpp"
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

// Where a fold starts: the newest snapshot, or an empty fleet before the first event.
struct FoldStart {
  std::string policy;                  // whose state `memory` holds; "" without a snapshot
  FleetMemory memory;
  std::optional<ConfigUpdate> config;  // the configuration in force at the snapshot
  std::uint64_t snapshot_seq = 0;      // the state is after this event; 0: before any
  std::uint64_t last_tick = 0;
  double last_now_s = 0;
  std::map<VariantKey, int> awaiting;  // applied targets not yet seen in the fleet
};

// The newest snapshot of the store (an empty FoldStart when there is none). Errors name
// the snapshot that cannot be read.
Result<FoldStart> newest_snapshot(const storage::EventStore& store);

// A tick event as it was stored. The fold does not decode it: `replay verify` compares
// its bytes with the recomputed event's, and only a reader that wants its fields pays
// for them (decoded()).
struct RecordedEvent {
  std::uint64_t seq = 0;
  double time_s = 0;
  std::string type;   // "params_learned", ..., "decision"
  std::string value;  // the stored value (storage/records.hpp's MessagePack)

  // Errors as storage::decode_event_value, or when the value is not a tick event.
  Result<TickEvent> decoded() const;
};

// A tick read back from the store: what it saw and what it recorded.
struct RecordedTick {
  std::uint64_t tick = 0;
  std::uint64_t seq = 0;  // of its `tick` event
  TickInput input;        // the models that timed out live are left out: they decided nothing
  std::vector<RecordedEvent> events;  // its recorded tick events (learned ... decision), in seq order
};

struct FoldRange {
  std::uint64_t to_seq = std::numeric_limits<std::uint64_t>::max();  // the last tick started at or before it
  // Every tick runs under this configuration instead of the recorded ones (what-if).
  const ConfigUpdate* config_override = nullptr;
  // Read and decode the store on a thread of its own while the caller's thread folds
  // (a long history on a machine with a core to spare); the ticks and their order are
  // the same either way.
  bool read_ahead = false;
  // How run_tick runs each tick's models (empty: one after another).
  ForEachModel for_each_model;
};

// What run_tick recomputed from a recorded tick, under `config`. The visitor may take
// the result's events and decisions: the fold only keeps its state.
using FoldVisitor = std::function<void(RecordedTick&, TickResult&, const ConfigUpdate& config)>;

// Folds every tick recorded after start.snapshot_seq (up to range.to_seq) through
// run_tick from start.memory; `start` is left at the state after the last tick (memory,
// config, last tick and time, awaiting targets). `visit` sees each tick once folded, in
// order, on the caller's thread.
// Errors name the event that cannot be read, or a tick with no configuration before it.
Result<std::uint64_t> fold_recorded(const storage::EventStore& store, const TickPolicy& policy, FoldStart& start,
                                    const FoldRange& range, const FoldVisitor& visit);

}  // namespace capstan::actors
