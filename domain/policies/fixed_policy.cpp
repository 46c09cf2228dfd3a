// Static provisioning; see fixed_policy.hpp.
#include "domain/policies/fixed_policy.hpp"

namespace capstan {
namespace {

class Fixed final : public TickPolicy {
 public:
  std::string name() const override { return "fixed"; }

  Planned plan(ModelState state, const ModelTickInput& m, std::span<const VariantView>, const PolicyConfig&,
               const TickTime&) const override {
    FixedMemory& memory = policy_memory<FixedMemory>(state);
    Planned out;
    out.proposal.model = m.model;
    out.proposal.priority = m.priority;
    for (const VariantTickInput& v : m.variants) {
      const int current = v.state.current_replicas;
      const int held = memory.held.try_emplace(v.state.spec.name, current).first->second;
      out.proposal.decisions.push_back({m.model, v.state.spec.name, current, held,
                                        make_reason(ReasonCode::kHold, "fixed.static", {{"held", held}})});
      out.proposal.gpus_per_replica.push_back(v.state.spec.gpus_per_replica);
      out.proposal.min_replicas.push_back(v.state.spec.min_replicas);
      out.proposal.band_raised.push_back(false);
    }
    out.next = std::move(state);
    return out;
  }

  // Static provisioning is not subject to the GPU budget: it is what was provisioned.
  Allocated allocate(FleetState state, const std::vector<ModelProposal>& proposals, const PolicyConfig&,
                     const TickTime&) const override {
    Allocated out;
    for (const ModelProposal& p : proposals) out.decisions.insert(out.decisions.end(), p.decisions.begin(), p.decisions.end());
    out.next = state;
    return out;
  }
};

}  // namespace

std::shared_ptr<const TickPolicy> fixed_policy() {
  static const auto policy = std::make_shared<const Fixed>();
  return policy;
}

}  // namespace capstan
