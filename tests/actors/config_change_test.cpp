// actors/config_watcher + fleet_actor: a running daemon re-reads its configuration
// before every tick; an invalid change is refused once, recorded, and the last good
// configuration stays in force; a valid change that drops a model stops its actor and
// its observations, and the ticks go on throughout.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <set>

#include "daemon_fixture.hpp"

namespace capstan {
namespace {

using testing::TempDir;

TEST_CASE("an invalid configuration is refused once and recorded; a change that drops a model stops deciding it") {
  TempDir dir("config_change");
  sim::FleetConfig first = testing::example_fleet(), second = testing::example_fleet();
  first.model = "kept-model";
  second.model = "dropped-model";
  std::vector<sim::ModelInput> models;
  models.push_back({first, testing::example_trace(), 1});
  models.push_back({second, testing::example_trace(), 1});
  const PolicyConfig config = testing::example_policy_config(first);
  fleet::SimulatedFleetOptions sopts;
  sopts.slo = config.slo;
  std::shared_ptr<fleet::SimulatedFleet> sim_fleet = fleet::SimulatedFleet::create(std::move(models), sopts).value();

  actors::ConfigUpdate every_model = testing::update_for("hybrid", config);
  actors::ConfigUpdate one_model = every_model;
  one_model.any_model = false;
  one_model.models[{"sim", "kept-model"}] = config;
  one_model.applied = {{"policy", "hybrid"}, {"models", {"kept-model"}}};

  // Before ticks 1-2 the start's configuration, before 3-4 a broken file, from 5 on
  // a valid one that keeps only one model.
  std::atomic<int> reads{0};
  actors::DaemonSetup setup;
  setup.policy = find_policy("hybrid").value();
  setup.config = every_model;
  setup.config_source = "capstan.yaml";
  setup.reload = [&]() -> Result<actors::ConfigUpdate> {
    const int n = ++reads;
    if (n <= 2) return every_model;
    if (n <= 4) return invalid_argument("file capstan.yaml: tick_s must be a duration in (0, 86400], got 'soon'");
    return one_model;
  };
  setup.source = sim_fleet;
  setup.connector = sim_fleet;
  setup.options.data_dir = dir.path.string();
  setup.options.virtual_clock = true;
  setup.options.max_ticks = 7;
  std::vector<actors::TickSummary> ticks;
  setup.on_tick = [&ticks](const actors::TickSummary& s) { ticks.push_back(s); };
  std::atomic<bool> stop{false};
  REQUIRE(actors::run_daemon(std::move(setup), stop) == 0);

  REQUIRE(ticks.size() == 7);
  for (std::size_t t = 0; t < 4; ++t) CHECK(ticks[t].decisions.size() == 4);  // both models, last good config
  for (std::size_t t = 4; t < 7; ++t) {
    REQUIRE(ticks[t].decisions.size() == 2);
    for (const Decision& d : ticks[t].decisions) CHECK(d.model.model_id == "kept-model");
  }

  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  int rejected = 0, applied = 0;
  std::uint64_t tick = 0;
  std::map<std::uint64_t, std::set<std::string>> observed;
  auto visited = store.value()->for_each({}, [&](const storage::Event& e) {
    if (const auto* t = std::get_if<storage::TickStarted>(&e.payload)) tick = t->tick;
    if (const auto* r = std::get_if<storage::ConfigRejected>(&e.payload)) {
      ++rejected;
      CHECK(r->source == "capstan.yaml");
      CHECK_THAT(r->error, Catch::Contains("tick_s must be a duration"));
      CHECK(tick == 3);  // recorded with the first tick after the bad read
    }
    if (std::holds_alternative<storage::ConfigApplied>(e.payload)) ++applied;
    if (const auto* o = std::get_if<storage::ObservationRecorded>(&e.payload)) observed[tick].insert(o->input->model.model_id);
    return true;
  });
  REQUIRE(visited.ok());
  CHECK(rejected == 1);  // the same broken input is reported once, not every tick
  CHECK(applied == 2);   // the start's, then the change
  CHECK(observed[4] == std::set<std::string>{"kept-model", "dropped-model"});
  CHECK(observed[5] == std::set<std::string>{"kept-model"});
  CHECK(observed[7] == std::set<std::string>{"kept-model"});
}

}  // namespace
}  // namespace capstan
