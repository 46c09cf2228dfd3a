// The shape shared by the policies that learn each variant's queue model and cold start
// from its own pods and then size the model from what was learned (hybrid, erlang):
// learn is learn_variant (model_learning.hpp); plan asks the policy for one request per
// variant over its own memory of the model, then runs finishing stages 1-4.
#pragma once

#include <span>
#include <vector>

#include "domain/model/model_learning.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan {

template <class Memory>
class LearningPolicy : public TickPolicy {
 public:
  Learned learn(VariantMemory memory, const ModelKey& model, const VariantTickInput& input, const PolicyConfig&,
                const TickTime& time) const final {
    return learn_variant(std::move(memory), model, input, time, learning());
  }

  Planned plan(ModelState state, const ModelTickInput& m, std::span<const VariantView> views,
               const PolicyConfig& config, const TickTime& time) const final {
    // The state moves once, into the result, and is planned there, rather than planned in
    // the argument and move-assigned at the end into a default-made `next`: libstdc++'s
    // deques allocate when default-made and when moved from (the moved-from one gets a
    // fresh map), and a ModelState holds some.
    Planned out{std::move(state), {}, {}};
    ModelRequests mr{&m, requests(m, views, config, time, policy_memory<Memory>(out.next), out.events)};
    out.proposal = finish_model(mr, config, time, out.next.finisher, out.events);
    return out;
  }

 protected:
  // How the policy learns each variant (model_learning.hpp's defaults unless it says).
  virtual VariantLearning learning() const { return {}; }

  // One request per variant of `model`, in its order; what was forecast or sized goes to
  // `events`.
  virtual std::vector<ScalingRequest> requests(const ModelTickInput& model, std::span<const VariantView> views,
                                               const PolicyConfig& config, const TickTime& time, Memory& memory,
                                               std::vector<TickEvent>& events) const = 0;
};

}  // namespace capstan
