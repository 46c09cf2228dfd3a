// actors/model_actor: asked one-way (the fleet's way), a model answers its asker with a
// `planned` message naming the tick and the model's index, carrying the plan a request
// would have been answered with.
#include "actors/model_actor.hpp"

#include <catch2/catch.hpp>

#include "daemon_fixture.hpp"

namespace capstan {
namespace {

// The example fleet's one model as the simulated fleet shows it at 300 s.
ModelTickInput example_input() {
  const sim::FleetConfig fleet = testing::example_fleet();
  fleet::SimulatedFleetOptions sopts;
  sopts.slo = testing::example_policy_config(fleet).slo;
  std::vector<sim::ModelInput> models;
  models.push_back({fleet, testing::example_trace(), 1});
  auto source = fleet::SimulatedFleet::create(std::move(models), sopts).value();
  auto observed = source->observe(TickTime{300, 300}, {});
  REQUIRE(observed.ok());
  REQUIRE(observed.value().input.models.size() == 1);
  return observed.value().input.models.front();
}

actors::model_actor spawn_model(caf::actor_system& system, const std::shared_ptr<const TickPolicy>& policy,
                                const ModelKey& key) {
  actors::ModelSnapshot start;
  start.policy = policy->name();
  start.model = key;
  return system.spawn(actors::model_behavior, policy, std::move(start), 5.0);
}

}  // namespace

TEST_CASE("a model asked one-way answers its asker with the plan a request gets, naming the tick and its index") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  const std::shared_ptr<const TickPolicy> policy = find_policy("hybrid").value();
  const auto input = std::make_shared<const ModelTickInput>(example_input());
  const auto config = std::make_shared<const PolicyConfig>(testing::example_policy_config(testing::example_fleet()));
  const actors::PlanRequest request{input, config, TickTime{300, 30}};

  actors::PlanReply asked;
  self->request(spawn_model(system, policy, input->model), caf::infinite, actors::plan_atom::value, request)
      .receive([&](actors::PlanReply& reply) { asked = std::move(reply); }, [](caf::error& err) { FAIL(caf::to_string(err)); });

  auto model = spawn_model(system, policy, input->model);
  self->send(model, actors::plan_atom::value, request, std::uint64_t{7}, std::uint64_t{3});
  bool answered = false;
  self->receive(
      [&](actors::planned_atom, std::uint64_t tick, std::uint64_t index, actors::PlanReply& reply) {
        answered = true;
        CHECK(tick == 7);
        CHECK(index == 3);
        REQUIRE(reply.proposal.decisions.size() == asked.proposal.decisions.size());
        REQUIRE_FALSE(reply.proposal.decisions.empty());
        for (std::size_t i = 0; i < reply.proposal.decisions.size(); ++i) {
          CHECK(reply.proposal.decisions[i].variant == asked.proposal.decisions[i].variant);
          CHECK(reply.proposal.decisions[i].target_replicas == asked.proposal.decisions[i].target_replicas);
        }
        CHECK(reply.learn_events.size() == asked.learn_events.size());
        CHECK(reply.plan_events.size() == asked.plan_events.size());
      },
      [](actors::planned_atom, std::uint64_t, std::uint64_t, std::string& error) { FAIL(error); });
  CHECK(answered);
  self->send_exit(model, caf::exit_reason::user_shutdown);
}

}  // namespace capstan
