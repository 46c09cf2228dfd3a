// The fleet's actor: owns the FleetState, spawns a model actor for each configured
// model it observes (stopping those that leave the configuration) and runs one tick
// end to end:
//
//   observe (collector) -> plan every model (each learns its variants first) ->
//   allocate (the GPU budget across models) -> settle the models -> journal the tick
//   (one durable batch) -> actuate -> journal the actuations -> reply to the driver.
//
// Every N ticks the fleet and its models are also snapshot: the models encode theirs
// while the decision batch is written, and the snapshots follow it in a batch of their
// own (the state after its last seq), beside the actuation rather than before it.
//
// Nothing is actuated before its decision is durable. A model that does not answer in
// time (or fails) is left out of the tick: it keeps its state and its fleet keeps the
// last targets applied, and an `incident` event says why; the other models' ticks go
// on. Events are recorded in the order the one tick driver returns them
// (domain/tick/tick_driver.hpp), after `tick`, `config_applied` and the observations.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan::actors {

struct FleetTimeouts {
  double observe_s = 10;
  double model_s = 5;      // a model's plan, its variants' learning included
  double journal_s = 30;
  double actuation_s = 10;
};

// What a restart resumes from (resume.hpp), or an empty fleet.
struct FleetStart {
  FleetState state;
  std::uint64_t last_tick = 0;
  std::map<ModelKey, ModelSnapshot> models;
  std::map<VariantKey, int> awaiting;  // applied targets not yet seen in the fleet
};

struct FleetOptions {
  FleetTimeouts timeouts;
  int snapshot_every_ticks = 20;  // 0 = never
  // Applied after each snapshot (max_age_s and max_bytes; 0 = no limit).
  double retention_max_age_s = 0;
  std::uint64_t retention_max_bytes = 0;
  // The tick's summary carries the events it appended (for the admin status; run_daemon
  // sets it when it keeps one).
  bool summary_events = false;
};

struct TickRun;  // a tick in flight (fleet_actor.cpp)

struct FleetActorState {
  std::shared_ptr<const TickPolicy> policy;
  FleetOptions options;
  FleetState fleet;
  ConfigUpdate config;
  bool record_config = true;  // the configuration changed: the next tick records it
  std::vector<ConfigRejection> rejections_to_record;
  std::map<ModelKey, model_actor> models;
  std::map<ModelKey, ModelSnapshot> restored;
  std::map<VariantKey, int> awaiting;  // targets applied, not yet current in the fleet
  collector_actor collector;
  journal_actor journal;
  actuator_actor actuator;
  std::uint64_t tick = 0;
  std::shared_ptr<TickRun> planning;  // the tick whose models are planning, until its deadline
  std::shared_ptr<TickRun> snapshotting;  // the tick whose models are giving their snapshots
  static inline const char* name = "capstan.fleet";
};

fleet_actor::behavior_type fleet_behavior(fleet_actor::stateful_pointer<FleetActorState> self,
                                          std::shared_ptr<const TickPolicy> policy, ConfigUpdate config,
                                          FleetStart start, FleetOptions options, collector_actor collector,
                                          journal_actor journal, actuator_actor actuator);

// The `applied` JSON of a configuration update, and the configurations a tick runs
// under, as the fleet snapshot and the fold read them back (resume.hpp).
TickConfigs tick_configs(const ConfigUpdate& config);

}  // namespace capstan::actors
