#include "actors/model_actor.hpp"

#include <chrono>
#include <utility>

#include "actors/message_codec.hpp"
#include "actors/variant_actor.hpp"

namespace capstan::actors {

namespace {

using self_ptr = model_actor::stateful_pointer<ModelActorState>;

variant_actor variant_for(self_ptr self, const std::string& name) {
  auto& s = self->state;
  auto it = s.variants.find(name);
  if (it != s.variants.end()) return it->second;
  VariantMemory memory;
  if (auto r = s.restored.find(name); r != s.restored.end()) {
    memory = std::move(r->second);
    s.restored.erase(r);
  }
  auto actor = self->spawn<caf::linked>(variant_behavior, s.policy, std::move(memory));
  s.variants.emplace(name, actor);
  return actor;
}

// Waits for every variant's reply, in the request's order; the first failure fails the
// plan (the fleet then holds this model, and nothing of this tick is committed).
struct LearnGather {
  std::uint64_t plan = 0;  // ModelActorState::plans when it was asked
  PlanRequest request;
  std::vector<std::optional<LearnReply>> replies;
  std::size_t left = 0;
  bool failed = false;
  // Where the plan goes: a requester's promise, or a one-way asker (plan_listener).
  caf::typed_response_promise<PlanReply> promise;
  plan_listener asker;
  std::uint64_t tick = 0, index = 0;

  void deliver(self_ptr self, PlanReply reply) {
    if (asker) return self->send(asker, planned_atom::value, tick, index, std::move(reply));
    promise.deliver(std::move(reply));
  }
  void fail(self_ptr self, caf::error err) {
    if (asker) return self->send(asker, planned_atom::value, tick, index, to_string(err));
    promise.deliver(std::move(err));
  }
};

void finish_plan(self_ptr self, LearnGather& g) {
  auto& s = self->state;
  std::vector<VariantView> views;
  views.reserve(g.replies.size());
  PlanReply reply;
  s.learned_this_tick.clear();
  for (auto& r : g.replies) {
    s.learned_this_tick.push_back(r->view.variant);
    for (TickEvent& e : r->events) reply.learn_events.push_back(std::move(e));
    views.push_back(std::move(r->view));
  }
  Planned planned = s.policy->plan(ModelState(s.state), *g.request.input, views, *g.request.config, g.request.time);
  s.pending = std::move(planned.next);
  reply.proposal = std::move(planned.proposal);
  reply.plan_events = std::move(planned.events);
  g.deliver(self, std::move(reply));
}

// Asks every variant to learn, then plans (finish_plan) once all have answered.
void start_plan(self_ptr self, const std::shared_ptr<LearnGather>& g, PlanRequest request) {
  g->plan = ++self->state.plans;
  g->request = std::move(request);
  const auto& variants = g->request.input->variants;
  g->replies.resize(variants.size());
  g->left = variants.size();
  self->state.pending.reset();
  if (variants.empty()) return finish_plan(self, *g);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    auto variant = variant_for(self, variants[i].state.spec.name);
    self->request(variant, caf::infinite, learn_atom::value, LearnRequest{g->request.input, i, g->request.config, g->request.time})
        .then(
            [self, g, i](LearnReply& reply) {
              // A stale gather (its plan overdue, a newer one asked) must not touch the
              // state the newer plan is building.
              if (g->failed || g->plan != self->state.plans) return;
              g->replies[i] = std::move(reply);
              if (--g->left == 0) finish_plan(self, *g);
            },
            [self, g, i](caf::error& err) {
              if (g->failed) return;
              g->failed = true;
              g->fail(self, caf::make_error(caf::sec::request_timeout, "variant '" + g->request.input->variants[i].state.spec.name +
                                                                           "' did not learn: " + to_string(err)));
            });
  }
}

}  // namespace

model_actor::behavior_type model_behavior(self_ptr self, std::shared_ptr<const TickPolicy> policy,
                                          ModelSnapshot restored, double learn_timeout_s) {
  auto& s = self->state;
  s.policy = std::move(policy);
  s.model = restored.model;
  s.state = std::move(restored.state);
  s.restored = std::move(restored.variants);
  s.learn_timeout = caf::duration{std::chrono::microseconds(static_cast<long long>(learn_timeout_s * 1e6))};
  return {
      [self](plan_atom, PlanRequest& request) -> caf::result<PlanReply> {
        auto g = std::make_shared<LearnGather>();
        g->promise = self->make_response_promise<PlanReply>();
        start_plan(self, g, std::move(request));
        return g->promise;
      },
      [self](plan_atom, PlanRequest& request, std::uint64_t tick, std::uint64_t index) {
        auto g = std::make_shared<LearnGather>();
        g->asker = caf::actor_cast<plan_listener>(self->current_sender());
        g->tick = tick;
        g->index = index;
        start_plan(self, g, std::move(request));
      },
      [self](settle_atom, const SettleRequest& request) {
        auto& s = self->state;
        if (!s.pending) return;  // the plan this settles was given up on
        s.state = request.unapplied
                      ? settle_unapplied(std::move(*s.pending), s.state.finisher.enforcer, request.decisions)
                      : settle(std::move(*s.pending), request.decisions);
        s.pending.reset();
        for (const std::string& name : s.learned_this_tick) self->send(s.variants.at(name), commit_atom::value);
        s.learned_this_tick.clear();
      },
      [self](snapshot_atom, std::uint64_t tick, std::uint64_t index) {
        auto& s = self->state;
        const auto asker = caf::actor_cast<snapshot_listener>(self->current_sender());
        auto snapshot = std::make_shared<ModelSnapshot>();
        snapshot->policy = s.policy->name();
        snapshot->model = s.model;
        snapshot->state = s.state;
        // Variants not started yet keep the memory they were restored with.
        snapshot->variants = s.restored;
        auto left = std::make_shared<std::size_t>(s.variants.size());
        auto failed = std::make_shared<bool>(false);
        auto send_encoded = [self, asker, tick, index, snapshot] {
          self->send(asker, snapped_atom::value, tick, index,
                     storage::Snapshot{storage::snapshot_scope(snapshot->model), 0, 0, encode_model_snapshot(*snapshot)});
        };
        if (s.variants.empty()) return send_encoded();
        for (const auto& [name, actor] : s.variants) {
          self->request(actor, s.learn_timeout, snapshot_atom::value)
              .then(
                  [snapshot, left, failed, send_encoded, name = name](VariantMemory& memory) {
                    if (*failed) return;
                    snapshot->variants[name] = std::move(memory);
                    if (--*left == 0) send_encoded();
                  },
                  [self, asker, tick, index, failed, name = name](caf::error& err) {
                    if (*failed) return;
                    *failed = true;
                    self->send(asker, snapped_atom::value, tick, index,
                               "variant '" + name + "' gave no snapshot: " + to_string(err));
                  });
        }
      },
  };
}

}  // namespace capstan::actors
