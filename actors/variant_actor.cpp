#include "actors/variant_actor.hpp"

namespace capstan::actors {

variant_actor::behavior_type variant_behavior(variant_actor::stateful_pointer<VariantActorState> self,
                                              std::shared_ptr<const TickPolicy> policy, VariantMemory memory) {
  self->state.policy = std::move(policy);
  self->state.memory = std::move(memory);
  return {
      [self](learn_atom, const LearnRequest& request) -> LearnReply {
        auto& s = self->state;
        Learned learned =
            s.policy->learn(s.memory, request.model_input->model, request.input(), *request.config, request.time);
        s.pending = std::move(learned.next);
        return LearnReply{std::move(learned.view), std::move(learned.events)};
      },
      [self](commit_atom) {
        auto& s = self->state;
        if (s.pending) s.memory = std::move(*s.pending);
        s.pending.reset();
      },
      [self](snapshot_atom) -> VariantMemory { return self->state.memory; },
  };
}

}  // namespace capstan::actors
