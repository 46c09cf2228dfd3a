// A scaling policy as three value functions, one per level of the fleet (DESIGN.md "The
// tick, as data"), each (state, input, config, time) -> (next state, output, events):
//
//   learn    per variant: what the variant's own pods teach (EKF parameters, cold start)
//   plan     per model:   demand, sizing, variant mix, then the finishing stages 1-4
//                         (metric guard, step limit, P:D band, enforcer): a proposal
//   allocate the fleet:   what spans models, the GPU budget by priority (stage 5)
//
// A policy object holds nothing between ticks: the states are passed in and returned,
// so the daemon's variant, model and fleet actors each own their part, and a snapshot
// of them resumes a run bit for bit. The configuration is an argument too, so a reload
// applies at the next tick. The one driver that runs the three in order is
// tick_driver.hpp.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "domain/tick/policy_config.hpp"
#include "domain/tick/tick_events.hpp"
#include "domain/tick/tick_input.hpp"
#include "domain/tick/tick_state.hpp"

namespace capstan {

struct Learned {
  VariantMemory next;
  VariantView view;
  std::vector<TickEvent> events;
};

struct Planned {
  ModelState next;
  ModelProposal proposal;
  std::vector<TickEvent> events;
};

struct Allocated {
  FleetState next;
  std::vector<Decision> decisions;  // one per variant of every proposal, in proposal order
  std::vector<TickEvent> events;
};

class TickPolicy {
 public:
  virtual ~TickPolicy() = default;
  virtual std::string name() const = 0;

  // Nothing learned by default: the memory passes through.
  virtual Learned learn(VariantMemory memory, const ModelKey& model, const VariantTickInput& input,
                        const PolicyConfig& config, const TickTime& time) const;

  // `variants` holds one view per variant of `input`, in its order.
  virtual Planned plan(ModelState state, const ModelTickInput& input, std::span<const VariantView> variants,
                       const PolicyConfig& config, const TickTime& time) const = 0;

  // Whether learn or plan reads the forward passes of `input`'s variants (Dynamo's
  // forward-pass regression). A daemon sends and records them only then: they are most
  // of an observation's bytes (64 iterations per replica), and a policy that never
  // reads them decides the same without them.
  virtual bool reads_forward_passes(const ModelTickInput&) const { return false; }

  // The GPU budget across models by priority (tick_finisher.hpp, stage 5).
  virtual Allocated allocate(FleetState state, const std::vector<ModelProposal>& proposals,
                             const PolicyConfig& config, const TickTime& time) const;
};

// After the fleet's final word on a model: what its plan must remember of it (the
// metric guard's last good targets). `decisions` are the model's, in its variant order.
ModelState settle(ModelState state, const std::vector<Decision>& decisions);

// Advisory mode (`--connector advisory`): the decisions await a person and nothing they
// ask for happens at this tick. The model settles each as a hold at the count it has
// (the metric guard remembers that count), and its enforcer's clock of last change stays
// where `before` (its enforcer state before this tick's plan) had it: a change that was
// not made starts no cooldown, so the next tick decides on the fleet as it is and a
// pending decision is not undone by a hold the cooldown alone caused.
ModelState settle_unapplied(ModelState state, const EnforcerState& before, const std::vector<Decision>& decisions);

}  // namespace capstan
