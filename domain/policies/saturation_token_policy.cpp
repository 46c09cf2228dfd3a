#include "domain/policies/saturation_token_policy.hpp"

#include <algorithm>

#include "domain/model/saturation_token.hpp"
#include "domain/stages/cost_aware_optimizer.hpp"

namespace capstan {

namespace {

class SaturationToken final : public TickPolicy {
 public:
  std::string name() const override { return "saturation-token"; }

  Planned plan(ModelState state, const ModelTickInput& m, std::span<const VariantView>, const PolicyConfig& config,
               const TickTime& time) const override {
    std::vector<TokenVariantInput> variants;
    for (const VariantTickInput& v : m.variants) {
      variants.push_back({v.state, {v.state.spec.kv_capacity_tokens,
                                    static_cast<double>(v.state.spec.max_num_batched_tokens)}});
    }
    TokenCapacityState& memory = policy_memory<TokenSaturationMemory>(state).capacity;
    auto step = analyze_saturation_token(variants, EppQueue{m.upstream_queue, 0, 0}, TokenSaturationConfig{}, memory);
    ModelRequests mr{&m, {}};
    if (step) {
      memory = step->state;
      // One request per variant, in the model's order, from whichever role's signal holds it.
      const auto per_role = optimize_cost_aware(step->analysis.signals);
      for (const VariantTickInput& v : m.variants) {
        auto it = std::find_if(per_role.begin(), per_role.end(),
                               [&](const ScalingRequest& r) { return r.variant == v.state.spec.name; });
        mr.requests.push_back(it != per_role.end()
                                  ? *it
                                  : hold(v.state.spec.name, v.state.current_replicas,
                                         make_reason(ReasonCode::kNoCapacityData, "saturation_token.no_capacity",
                                                     {{"current", v.state.current_replicas}})));
      }
    } else {
      for (const VariantTickInput& v : m.variants) {
        mr.requests.push_back(hold(v.state.spec.name, v.state.current_replicas,
                                   make_reason(ReasonCode::kHold, "saturation.failed",
                                               {{"current", v.state.current_replicas}, {"error", step.error().message}})));
      }
    }
    Planned out;
    out.proposal = finish_model(mr, config, time, state.finisher, out.events);
    out.next = std::move(state);
    return out;
  }
};

}  // namespace

std::shared_ptr<const TickPolicy> saturation_token_policy() {
  static const auto policy = std::make_shared<const SaturationToken>();
  return policy;
}

}  // namespace capstan
