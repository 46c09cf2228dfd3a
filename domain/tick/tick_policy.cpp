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

ModelState settle_unapplied(ModelState state, const EnforcerState& before, const std::vector<Decision>& decisions) {
  std::vector<Decision> holds = decisions;
  for (Decision& d : holds) {
    if (d.target_replicas == d.current_replicas) continue;
    d.target_replicas = d.current_replicas;
    const auto was = before.variants.find(d.variant);
    const auto now = state.finisher.enforcer.variants.find(d.variant);
    if (now != state.finisher.enforcer.variants.end()) {
      now->second.last_change_s = was != before.variants.end() ? was->second.last_change_s : std::nullopt;
    }
  }
  return settle(std::move(state), holds);
}

}  // namespace capstan
