// Every message the daemon's actors exchange and every typed actor interface, in one
// place (STYLE.md: the protocol visible at a glance). A tick flows:
//
//   driver --tick--> fleet --observe--> collector (the metrics source)
//                    fleet --plan-->  model --learn--> variant     (per model, per variant)
//                    fleet <--planned-- model                       (one-way, not a reply)
//                    fleet: allocate (the GPU budget across models)
//                    fleet --settle--> model --commit--> variant   (states move on)
//                    fleet --append--> journal (durable: one RocksDB WriteBatch)
//                    fleet --actuate--> actuator (the connector), results appended
//                    every N ticks, beside the two above:
//                    fleet --snapshot--> model --snapshot--> variant
//                    fleet <--snapped-- model (its state, encoded; one-way)
//                    fleet --append--> journal (the snapshots, a batch of their own)
//
// The actors only carry state between ticks and move messages; the work is the tick's
// three value functions (domain/tick/tick_policy.hpp). A learned or planned state is
// held as pending until the fleet settles the tick, so a model that timed out moves on
// not at all, exactly as a restart that folds the recorded events sees it.
//
// Messages that carry domain values have an `inspect` overload that goes through the
// project's codecs (message_codec.hpp), so they can cross a process boundary in the
// same versioned form the event store records; inside the daemon they are only moved.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "adapters/fleet/metrics_source.hpp"
#include "domain/stages/tick_finisher.hpp"
#include "domain/tick/tick_driver.hpp"
#include "storage/event_store.hpp"

namespace capstan::actors {

using tick_atom = caf::atom_constant<caf::atom("tick")>;
using observe_atom = caf::atom_constant<caf::atom("observe")>;
using learn_atom = caf::atom_constant<caf::atom("learn")>;
using plan_atom = caf::atom_constant<caf::atom("plan")>;
using settle_atom = caf::atom_constant<caf::atom("settle")>;
using commit_atom = caf::atom_constant<caf::atom("commit")>;
using snapshot_atom = caf::atom_constant<caf::atom("snapshot")>;
using append_atom = caf::atom_constant<caf::atom("append")>;
using actuate_atom = caf::atom_constant<caf::atom("actuate")>;
using config_atom = caf::atom_constant<caf::atom("config")>;
using pending_atom = caf::atom_constant<caf::atom("pending")>;
using review_atom = caf::atom_constant<caf::atom("review")>;
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;
using planned_atom = caf::atom_constant<caf::atom("planned")>;
using snapped_atom = caf::atom_constant<caf::atom("snapped")>;

// A model's observation and configuration are shared, read-only, by the fleet's tick,
// the model's plan and its variants' learn: one copy per tick rather than one per
// message (at 10,000 models the copies were a large part of a tick).

// variant <- model: learn from this tick's pods (the model's observation's variant
// `variant`).
struct LearnRequest {
  std::shared_ptr<const ModelTickInput> model_input;
  std::size_t variant = 0;
  std::shared_ptr<const PolicyConfig> config;
  TickTime time;

  const VariantTickInput& input() const { return model_input->variants.at(variant); }
};
struct LearnReply {
  VariantView view;
  std::vector<TickEvent> events;
};

// model <- fleet: learn every variant, then plan.
struct PlanRequest {
  std::shared_ptr<const ModelTickInput> input;
  std::shared_ptr<const PolicyConfig> config;
  TickTime time;
};
struct PlanReply {
  ModelProposal proposal;
  std::vector<TickEvent> learn_events;  // variant by variant
  std::vector<TickEvent> plan_events;
};

// model <- fleet: the fleet's final word on the model's variants (its order).
struct SettleRequest {
  std::vector<Decision> decisions;
  bool unapplied = false;  // advisory mode: they await a person (settle_unapplied)
};

// The state of one model and its variants, for a snapshot and for a restart.
struct ModelSnapshot {
  std::string policy;  // whose memory `state` holds
  ModelKey model;
  ModelState state;
  std::map<std::string, VariantMemory> variants;
};

// journal <- fleet: one durable batch.
struct JournalBatch {
  std::vector<storage::Event> events;
  std::vector<storage::Snapshot> snapshots;
  // With a snapshot: drop what the retention allows, once the batch is durable.
  std::optional<storage::RetentionPolicy> retention;
};
struct JournalAck {
  std::uint64_t first_seq = 0;  // of the batch's first event; 0 for an empty batch
  std::uint64_t last_seq = 0;   // the store's last sequence after the batch
  std::vector<storage::Event> events;  // the batch's events, moved back with their seqs
};

// actuator <- fleet: decisions made durable, with the sequence of each decision event.
struct ActuationRequest {
  std::vector<Decision> decisions;
  std::vector<std::uint64_t> decision_seqs;
  double now_s = 0;
};
struct ActuationReport {
  std::vector<storage::ActuationRecorded> results;
};

// admin API -> actuator, in advisory mode (actuator_approvals.hpp): what awaits approval,
// and a person's word on one decision. They never leave the process.
struct PendingDecision {
  std::uint64_t id = 0;  // the decision event's seq
  Decision decision;
};
struct PendingDecisions {
  bool advisory = false;  // false: the actuator applies every decision itself
  std::vector<PendingDecision> decisions;
};
struct ReviewRequest {
  std::uint64_t id = 0;
  bool approve = false;
  std::string by;
  std::string reason;
};
struct ReviewReply {
  bool advisory = true;  // false: the daemon applies its decisions itself
  bool done = false;     // taken: recorded, and applied if approved, at the next tick
  std::string error;     // why not
};

// fleet <- config watcher: a validated configuration to apply from the next tick.
struct ConfigUpdate {
  std::string policy;
  PolicyConfig fleet;                           // allocate's (the GPU budget)
  std::map<ModelKey, PolicyConfig> models;      // each model's, its overrides applied
  bool any_model = true;                        // no model declared: every observed model is served
  bool await_approval = false;                  // advisory mode: decisions settle unapplied
  nlohmann::json applied;                       // what the config_applied event records
};

// fleet <- config watcher: a change that failed validation; the last good configuration
// stays, and the next tick records why (a config_rejected event).
struct ConfigRejection {
  std::string source;
  std::string error;
};

// driver <- fleet: how a tick went.
struct TickSummary {
  std::uint64_t tick = 0;
  double now_s = 0;
  bool more = true;  // false: the source has nothing more (a finished simulated trace)
  bool last = false;
  std::vector<Decision> decisions;
  std::vector<std::string> incidents;  // human sentences of this tick's incidents
  std::uint64_t last_seq = 0;
  // Where the tick's wall time went, ms from its start: observed, every model planned
  // (allocate included), the decision batch durable, and done (actuated and recorded).
  double observed_ms = 0, planned_ms = 0, durable_ms = 0, done_ms = 0;
  // With FleetOptions::summary_events: the events the tick appended, with their seqs, in
  // sequence order (the admin status reads them; nobody re-reads the store for them).
  std::vector<storage::Event> events;
};

// ---- typed actor interfaces ------------------------------------------------------

using variant_actor = caf::typed_actor<caf::replies_to<learn_atom, LearnRequest>::with<LearnReply>,
                                       caf::reacts_to<commit_atom>,
                                       caf::replies_to<snapshot_atom>::with<VariantMemory>>;

// Whoever has a model plan one-way (the fleet, for tick `tick`, the `index`th model it
// asked): the model answers with its plan, or why it has none. The fleet asks every
// model each tick; as requests, 10,000 of them kept as many response handlers open in
// the fleet, which CAF 0.17 holds in a flat vector (searched and erased from as each
// reply arrived: quadratic in the models, a tenth of a 10,000-model tick's CPU).
using plan_listener = caf::typed_actor<caf::reacts_to<planned_atom, std::uint64_t, std::uint64_t, PlanReply>,
                                       caf::reacts_to<planned_atom, std::uint64_t, std::uint64_t, std::string>>;

// Whoever asks a model for its snapshot one-way (the fleet, on tick `tick`, the `index`th
// model it asked): the model answers with its ModelSnapshot encoded as the store keeps
// it, or why it has none. One-way and encoded by the model for the reasons plans are:
// 10,000 open requests are quadratic in CAF 0.17, and 10,000 encodings on the fleet's
// thread were most of a snapshot tick; on the models' they run on every core.
using snapshot_listener = caf::typed_actor<caf::reacts_to<snapped_atom, std::uint64_t, std::uint64_t, storage::Snapshot>,
                                           caf::reacts_to<snapped_atom, std::uint64_t, std::uint64_t, std::string>>;

using model_actor = caf::typed_actor<caf::replies_to<plan_atom, PlanRequest>::with<PlanReply>,
                                     caf::reacts_to<plan_atom, PlanRequest, std::uint64_t, std::uint64_t>,
                                     caf::reacts_to<settle_atom, SettleRequest>,
                                     caf::reacts_to<snapshot_atom, std::uint64_t, std::uint64_t>>;

using collector_actor = caf::typed_actor<caf::replies_to<observe_atom, TickTime>::with<fleet::Observed>>;

using journal_actor = caf::typed_actor<caf::replies_to<append_atom, JournalBatch>::with<JournalAck>>;

using actuator_actor = caf::typed_actor<caf::replies_to<actuate_atom, ActuationRequest>::with<ActuationReport>,
                                        caf::replies_to<pending_atom>::with<PendingDecisions>,
                                        caf::replies_to<review_atom, ReviewRequest>::with<ReviewReply>>;

// The fleet's own timers: tick `n`'s models have had their time to plan, or (with
// snapshot_atom) to give their snapshots. One timer per tick rather than a timeout per
// request: at 10,000 models the actor clock's bookkeeping of 20,000 request timeouts a
// tick was a core's tenth.
using fleet_actor = caf::typed_actor<caf::replies_to<tick_atom, TickTime>::with<TickSummary>,
                                     caf::reacts_to<deadline_atom, std::uint64_t>,
                                     caf::reacts_to<deadline_atom, std::uint64_t, snapshot_atom>,
                                     caf::reacts_to<snapped_atom, std::uint64_t, std::uint64_t, storage::Snapshot>,
                                     caf::reacts_to<snapped_atom, std::uint64_t, std::uint64_t, std::string>,
                                     caf::reacts_to<planned_atom, std::uint64_t, std::uint64_t, PlanReply>,
                                     caf::reacts_to<planned_atom, std::uint64_t, std::uint64_t, std::string>,
                                     caf::reacts_to<config_atom, ConfigUpdate>,
                                     caf::reacts_to<config_atom, ConfigRejection>>;

// Re-reads the configuration (its loader is given at spawn), sends the fleet a change
// or a rejection, then replies; the driver asks before every tick, so a change applies
// from the next tick.
using check_atom = caf::atom_constant<caf::atom("check")>;
using config_watcher_actor = caf::typed_actor<caf::replies_to<check_atom>::with<bool>>;

}  // namespace capstan::actors

#include "actors/message_inspect.hpp"
