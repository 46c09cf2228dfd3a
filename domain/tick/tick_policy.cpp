#include "domain/tick/tick_policy.hpp"

namespace capstan {

Learned TickPolicy::learn(VariantMemory memory, const ModelKey&, const VariantTickInput& input, const PolicyConfig&,
                          const TickTime&) const {
  Learned out;
  out.view.variant = input.state.spec.name;
  out.view.learned = memory;
  out.view.tuning.source = "none";
  out.next = std::move(memory);
  return out;
}

Allocated TickPolicy::allocate(FleetState state, const std::vector<ModelProposal>& proposals,
                               const PolicyConfig& config, const TickTime&) const {
  Allocated out;
  out.decisions = share_budget(proposals, config, out.events);
  out.next = state;
  return out;
}

ModelState settle(ModelState state, const std::vector<Decision>& decisions) {
  remember_targets(state.finisher, decisions);
  return state;
}

}  // namespace capstan
