// The shape shared by the loops that decide each variant on its own (hpa, load,
// throughput): plan runs the policy's step over each variant's own state, in the
// model's variant order, then the finishing stages without the WVA enforcer (those
// loops pace and bound themselves: Dynamo's adjustment interval, the HPA's
// stabilization window). Nothing is learned at the variant level.
#pragma once

#include <string>
#include <utility>

#include "domain/tick/tick_policy.hpp"

namespace capstan {

template <class VariantState>
class PerVariantPolicy : public TickPolicy {
 public:
  Planned plan(ModelState state, const ModelTickInput& m, std::span<const VariantView>, const PolicyConfig& config,
               const TickTime& time) const final {
    auto& memory = policy_memory<PerVariantMemory<VariantState>>(state);
    Planned out;
    ModelRequests mr{&m, {}, {}};
    for (const VariantTickInput& v : m.variants) {
      VariantState& own = memory.variants[v.state.spec.name];
      auto [next, wish] = step(std::move(own), m, v, config, time, out.events);
      own = std::move(next);
      mr.requests.push_back(std::move(wish.request));
      mr.unusable.push_back(std::move(wish.unusable));
    }
    out.proposal = finish_model(mr, config, time, state.finisher, out.events, finish_options());
    out.next = std::move(state);
    return out;
  }

 protected:
  // One variant's next state and wish; what it forecast or sized goes to `events`.
  virtual std::pair<VariantState, VariantWish> step(VariantState state, const ModelTickInput& model,
                                                    const VariantTickInput& variant, const PolicyConfig& config,
                                                    const TickTime& time, std::vector<TickEvent>& events) const = 0;
  virtual FinishOptions finish_options() const { return {.enforcer = false}; }
};

}  // namespace capstan
