// actors/collector: the collector asks the metrics source for the forward passes of only
// the models whose policy reads them, so that a tick never holds the others.
#include "actors/collector.hpp"

#include <catch2/catch.hpp>

#include "daemon_fixture.hpp"

namespace capstan {
namespace {

// The simulated example fleet observed at 300 s through a collector serving `policy`.
fleet::Observed observed_for(const std::string& policy) {
  const sim::FleetConfig fleet = testing::example_fleet();
  fleet::SimulatedFleetOptions sopts;
  sopts.slo = testing::example_policy_config(fleet).slo;
  std::vector<sim::ModelInput> models;
  models.push_back({fleet, testing::example_trace(), 1});
  std::shared_ptr<fleet::MetricsSource> source = fleet::SimulatedFleet::create(std::move(models), sopts).value();
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto collector = system.spawn<caf::detached>(actors::collector_behavior, source, find_policy(policy).value());
  caf::scoped_actor self{system};
  fleet::Observed out;
  self->request(collector, caf::infinite, actors::observe_atom::value, TickTime{300, 300})
      .receive([&out](fleet::Observed& observed) { out = std::move(observed); },
               [](caf::error& err) { FAIL(caf::to_string(err)); });
  self->send_exit(collector, caf::exit_reason::user_shutdown);
  return out;
}

std::size_t forward_passes(const fleet::Observed& observed) {
  std::size_t n = 0;
  for (const ModelTickInput& m : observed.input.models)
    for (const VariantTickInput& v : m.variants) n += v.forward_passes.size();
  return n;
}

TEST_CASE("the collector has the source build no forward passes for a policy that does not read them") {
  // hybrid reads them only for a prefill/decode split; the example fleet has none.
  const fleet::Observed hybrid = observed_for("hybrid");
  REQUIRE_FALSE(hybrid.input.models.empty());
  CHECK(forward_passes(hybrid) == 0);
  for (const VariantTickInput& v : hybrid.input.models[0].variants) CHECK(v.forward_passes.capacity() == 0);
  // load regresses on them: the same observation carries them.
  CHECK(forward_passes(observed_for("load")) > 0);
}

}  // namespace
}  // namespace capstan
