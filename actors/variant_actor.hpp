// A variant's actor: owns its VariantMemory (the EKF tuner's parameters and covariance,
// the learned cold start) and runs the policy's `learn` on each tick's pods. What it
// learned is held as pending until its model settles the tick (commit), so a tick the
// fleet gave up on leaves the variant as it was.
#pragma once

#include <memory>
#include <optional>

#include "actors/messages.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan::actors {

struct VariantActorState {
  std::shared_ptr<const TickPolicy> policy;
  VariantMemory memory;
  std::optional<VariantMemory> pending;
  static inline const char* name = "capstan.variant";
};

variant_actor::behavior_type variant_behavior(variant_actor::stateful_pointer<VariantActorState> self,
                                              std::shared_ptr<const TickPolicy> policy, VariantMemory memory);

}  // namespace capstan::actors
