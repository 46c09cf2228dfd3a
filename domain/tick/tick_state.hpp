// The state a fleet carries from one tick to the next, split by the level that owns it
// (DESIGN.md "The tick, as data"): VariantMemory per variant (learn), ModelState per
// model (plan), FleetState for the fleet (allocate). Plain values with nothing hidden:
// a daemon actor holds one, a snapshot stores it, a restart restores it, and the same
// inputs then give the same decisions bit for bit. Their recorded form is
// domain/codec/state_codec.hpp.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "domain/core/workload.hpp"
#include "domain/model/cold_start_estimator.hpp"
#include "domain/model/ekf_tuner.hpp"
#include "domain/model/queueing_analyzer.hpp"
#include "domain/policies/policy_memories.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {

// What a variant has learned from its own pods: its parameter store.
struct VariantMemory {
  std::optional<TunerState> tuner;           // the EKF's (alpha, beta, gamma) and covariance
  std::optional<ColdStartState> cold_start;  // start-up times seen, and the configured prior
  // When the variant's warm pods last held more than one waiting request each: for a few
  // windows after, the requests finishing ran in the batch the backlog filled, and
  // their latency says nothing of the rate arriving (model_learning.hpp).
  std::optional<double> waited_at_s;

  bool operator==(const VariantMemory&) const = default;
};

// What `learn` tells `plan` about one variant this tick.
struct VariantView {
  std::string variant;
  VariantMemory learned;     // after this tick's learning
  TunerReport tuning;        // what this tick's EKF step did ("none" when it did not run)
  VariantWorkload workload;  // the aggregate of the pods the tuner read
};

// Each policy's planning memory of one model; std::monostate for a policy that keeps
// none (saturation, queueing). Alternatives are appended, never reordered: the codec
// names them.
using PolicyMemory = std::variant<std::monostate, FixedMemory, HybridMemory, ErlangMemory, TokenSaturationMemory,
                                  HpaMemory, LoadMemory, ThroughputMemory>;

struct ModelState {
  ModelFinisherState finisher;  // metric guard's last good targets, enforcer clocks
  PolicyMemory policy;
};

// The policy's memory of type M in `state`, made fresh when the model has none yet.
template <class M>
M& policy_memory(ModelState& state) {
  if (!std::holds_alternative<M>(state.policy)) state.policy.template emplace<M>();
  return std::get<M>(state.policy);
}

// What spans models between ticks. Nothing does today: the GPU budget is shared anew
// at every tick from the models' proposals. The type is here so that the fleet actor,
// its snapshots and the codec already have a place for it.
struct FleetState {
  bool operator==(const FleetState&) const = default;
};

}  // namespace capstan
