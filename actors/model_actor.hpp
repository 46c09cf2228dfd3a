// A model's actor: owns its ModelState (demand memory and forecasters, the enforcer's
// clocks, the metric guard's last good targets) and a variant actor per variant. On a
// plan request it has every variant learn from its pods, then runs the policy's `plan`
// over their views; the planned state waits as pending until the fleet settles the
// tick with its final decisions (`settle`), which also commits the variants' learning.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan::actors {

struct ModelActorState {
  std::shared_ptr<const TickPolicy> policy;
  ModelKey model;
  ModelState state;
  // The planned state, until the fleet settles the tick. Plan takes its state by value
  // and `state` must survive a plan the fleet gives up on, so each plan works on a copy;
  // at settle the old state is freed, not kept as a spare to copy into: settle comes
  // before the journal's write, the tick's peak of memory, and a spare held a second
  // full state per model through it.
  std::optional<ModelState> pending;
  std::map<std::string, variant_actor> variants;
  // Memories to start variants with, from a restart; moved into each variant's actor
  // when the variant is first seen.
  std::map<std::string, VariantMemory> restored;
  std::vector<std::string> learned_this_tick;  // the variants to commit at settle
  std::uint64_t plans = 0;  // plan requests taken: a gather of an earlier one is stale
  // A snapshot's wait for each variant. Learning has no timeout of its own: the fleet's
  // plan deadline covers it, and a plan the fleet gave up on is never settled.
  caf::duration learn_timeout = caf::duration{std::chrono::seconds(5)};
  static inline const char* name = "capstan.model";
};

model_actor::behavior_type model_behavior(model_actor::stateful_pointer<ModelActorState> self,
                                          std::shared_ptr<const TickPolicy> policy, ModelSnapshot restored,
                                          double learn_timeout_s);

}  // namespace capstan::actors
