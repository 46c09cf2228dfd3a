// actors/: the daemon's actors run the one tick driver's functions with a mailbox, so
// over the same trace, fleet and seed they decide exactly what `simulate` decides; a
// restart resumes the learned state bit for bit; a hung connector or a silent model
// does not stall the tick.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "actors/message_codec.hpp"
#include "actors/resume.hpp"
#include "daemon_fixture.hpp"
#include "domain/codec/state_codec.hpp"
#include "sim/harness.hpp"

namespace capstan {
namespace {

using testing::TempDir;

std::vector<std::vector<Decision>> simulate_decisions(const std::string& policy_name) {
  const sim::FleetConfig fleet = testing::example_fleet();
  auto policy = make_policy(policy_name, testing::example_policy_config(fleet)).value();
  std::vector<std::vector<Decision>> out;
  sim::HarnessOptions options;
  options.slo = testing::example_policy_config(fleet).slo;
  options.on_tick = [&out](const TickInput&, const std::vector<Decision>& decisions) { out.push_back(decisions); };
  auto run = sim::run_policy(*policy, fleet, testing::example_trace(), options);
  REQUIRE(run.ok());
  return out;
}

TEST_CASE("over the example trace the daemon's actors decide exactly what simulate decides, tick by tick") {
  for (const std::string policy : {"hybrid", "fixed", "load", "throughput", "saturation", "saturation-token", "hpa"}) {
    CAPTURE(policy);
    TempDir dir("parity_" + policy);
    actors::DaemonOptions options;
    auto daemon = testing::run_example_daemon(policy, dir.path.string(), options);
    REQUIRE(daemon.status == 0);
    const auto simulated = simulate_decisions(policy);
    REQUIRE(daemon.ticks.size() == simulated.size());
    for (std::size_t t = 0; t < simulated.size(); ++t) {
      CAPTURE(t);
      REQUIRE(daemon.ticks[t].decisions == simulated[t]);
    }
  }
}

std::string resumed_state(const std::string& data_dir, const TickPolicy& policy, std::uint64_t* folded = nullptr) {
  auto store = storage::EventStore::open_read_only(data_dir);
  REQUIRE(store.ok());
  auto resumed = actors::resume(*store.value(), policy);
  REQUIRE(resumed.ok());
  REQUIRE(resumed.value().mismatched_decisions == 0);
  if (folded != nullptr) *folded = resumed.value().folded_ticks;
  FleetMemory memory;
  memory.fleet = resumed.value().start.state;
  for (const auto& [key, snapshot] : resumed.value().start.models) {
    memory.models[key] = snapshot.state;
    for (const auto& [name, variant] : snapshot.variants) memory.variants[{key, name}] = variant;
  }
  return encode_fleet_memory(policy.name(), memory).dump();
}

TEST_CASE("a snapshot and the fold of the ticks after it give the state a full fold and a final snapshot give") {
  auto policy = find_policy("hybrid").value();
  actors::DaemonOptions options;
  options.max_ticks = 12;
  TempDir every_tick("snap1"), every_five("snap5"), never("snap0");
  options.fleet.snapshot_every_ticks = 1;
  REQUIRE(testing::run_example_daemon("hybrid", every_tick.path.string(), options).status == 0);
  options.fleet.snapshot_every_ticks = 5;
  REQUIRE(testing::run_example_daemon("hybrid", every_five.path.string(), options).status == 0);
  options.fleet.snapshot_every_ticks = 0;
  REQUIRE(testing::run_example_daemon("hybrid", never.path.string(), options).status == 0);

  std::uint64_t folded_final = 99, folded_five = 99, folded_all = 99;
  const std::string final_snapshot = resumed_state(every_tick.path.string(), *policy, &folded_final);
  const std::string snapshot_and_fold = resumed_state(every_five.path.string(), *policy, &folded_five);
  const std::string full_fold = resumed_state(never.path.string(), *policy, &folded_all);
  CHECK(folded_final == 0);
  CHECK(folded_five == 2);
  CHECK(folded_all == 12);
  CHECK(snapshot_and_fold == final_snapshot);
  CHECK(full_fold == final_snapshot);
}

TEST_CASE("a restarted daemon continues the tick count and the event sequence where the store left them") {
  TempDir dir("restart");
  actors::DaemonOptions options;
  options.max_ticks = 6;
  options.fleet.snapshot_every_ticks = 4;
  auto first = testing::run_example_daemon("hybrid", dir.path.string(), options);
  REQUIRE(first.status == 0);
  REQUIRE(first.ticks.back().tick == 6);
  auto second = testing::run_example_daemon("hybrid", dir.path.string(), options);
  REQUIRE(second.status == 0);
  REQUIRE(second.ticks.front().tick == 7);
  REQUIRE(second.ticks.front().now_s == 7 * 30.0);

  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  std::uint64_t expected = 1, ticks = 0;
  auto visited = store.value()->for_each({}, [&](const storage::Event& e) {
    CHECK(e.seq == expected++);
    if (std::holds_alternative<storage::TickStarted>(e.payload)) ++ticks;
    return true;
  });
  REQUIRE(visited.ok());
  CHECK(ticks == 12);
  CHECK(expected - 1 == store.value()->last_sequence());
}

TEST_CASE("a tick's summary carries the events the tick appended, as the store holds them, only when asked") {
  TempDir dir("summary_events");
  actors::DaemonOptions options;
  options.max_ticks = 5;
  options.fleet.snapshot_every_ticks = 2;
  options.fleet.summary_events = true;
  const auto run = testing::run_example_daemon("hybrid", dir.path.string(), options);
  REQUIRE(run.status == 0);
  REQUIRE(run.ticks.size() == 5);
  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  std::uint64_t before = 0;
  for (const actors::TickSummary& tick : run.ticks) {
    std::vector<std::string> stored;
    storage::EventFilter filter;
    filter.from_seq = before + 1;
    filter.to_seq = tick.last_seq;
    REQUIRE(store.value()->for_each(filter, [&](const storage::Event& e) {
      stored.push_back(std::to_string(e.seq) + " " + storage::encode_event_value(e));
      return true;
    }).ok());
    std::vector<std::string> carried;
    for (const storage::Event& e : tick.events) carried.push_back(std::to_string(e.seq) + " " + storage::encode_event_value(e));
    CHECK(stored.size() > 3);  // tick, observation, learned, ..., decision, actuations
    CHECK(carried == stored);
    before = tick.last_seq;
  }

  TempDir plain("summary_no_events");
  options.fleet.summary_events = false;
  const auto quiet = testing::run_example_daemon("hybrid", plain.path.string(), options);
  REQUIRE(quiet.status == 0);
  for (const actors::TickSummary& tick : quiet.ticks) CHECK(tick.events.empty());
}

TEST_CASE("a daemon refuses a data directory that holds another policy's state, naming both") {
  TempDir dir("other_policy");
  actors::DaemonOptions options;
  options.max_ticks = 2;
  options.fleet.snapshot_every_ticks = 1;
  REQUIRE(testing::run_example_daemon("hybrid", dir.path.string(), options).status == 0);
  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  auto resumed = actors::resume(*store.value(), *find_policy("load").value());
  REQUIRE_FALSE(resumed.ok());
  CHECK_THAT(resumed.error().message, Catch::Contains("'hybrid', not 'load'"));
}

// A connector whose every call hangs for a while, as an API server that does not answer.
class HangingConnector : public fleet::Connector {
 public:
  std::string name() const override { return "hanging"; }
  Result<int> scale(const VariantKey&, int replicas) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return replicas;
  }
};

TEST_CASE("a connector that hangs does not stall the ticks: each says so in an incident and the next goes on") {
  TempDir dir("hung");
  actors::DaemonOptions options;
  options.max_ticks = 4;
  options.fleet.timeouts.actuation_s = 0.05;
  const auto start = std::chrono::steady_clock::now();
  auto run = testing::run_example_daemon("hybrid", dir.path.string(), options, {}, std::make_shared<HangingConnector>());
  REQUIRE(run.status == 0);
  REQUIRE(run.ticks.size() == 4);
  for (const auto& tick : run.ticks) {
    REQUIRE(tick.incidents.size() == 1);
    CHECK_THAT(tick.incidents.front(), Catch::Contains("the connector did not answer"));
  }
  // Four ticks took far less than the connector's hangs would add up to in a row, plus
  // the shutdown waiting for the calls already made.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

// A policy whose learning hangs for one model: a model whose metrics never arrive.
class SlowForOneModel : public TickPolicy {
 public:
  SlowForOneModel(std::shared_ptr<const TickPolicy> inner, std::string slow) : inner_(std::move(inner)), slow_(std::move(slow)) {}
  std::string name() const override { return inner_->name(); }
  Learned learn(VariantMemory memory, const ModelKey& model, const VariantTickInput& input, const PolicyConfig& config,
                const TickTime& time) const override {
    if (model.model_id == slow_) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return inner_->learn(std::move(memory), model, input, config, time);
  }
  Planned plan(ModelState state, const ModelTickInput& input, std::span<const VariantView> variants,
               const PolicyConfig& config, const TickTime& time) const override {
    return inner_->plan(std::move(state), input, variants, config, time);
  }
  Allocated allocate(FleetState state, const std::vector<ModelProposal>& proposals, const PolicyConfig& config,
                     const TickTime& time) const override {
    return inner_->allocate(std::move(state), proposals, config, time);
  }

 private:
  std::shared_ptr<const TickPolicy> inner_;
  std::string slow_;
};

// The example fleet twice: "fast-model", and "slow-model" whose learning SlowForOneModel slows.
std::vector<sim::ModelInput> fast_and_slow_models() {
  std::vector<sim::ModelInput> models;
  for (const char* name : {"fast-model", "slow-model"}) {
    sim::FleetConfig fleet = testing::example_fleet();
    fleet.model = name;
    models.push_back({fleet, testing::example_trace(), 1});
  }
  return models;
}

TEST_CASE("a model that does not answer in time holds its last decisions while the other models are decided") {
  TempDir dir("silent");
  std::vector<sim::ModelInput> models = fast_and_slow_models();
  actors::DaemonOptions options;
  options.max_ticks = 3;
  options.fleet.timeouts.model_s = 0.1;
  auto policy = std::make_shared<SlowForOneModel>(find_policy("hybrid").value(), "slow-model");
  auto run = testing::run_example_daemon("hybrid", dir.path.string(), options, std::move(models), nullptr, policy);
  REQUIRE(run.status == 0);
  REQUIRE(run.ticks.size() == 3);
  for (const auto& tick : run.ticks) {
    REQUIRE(tick.decisions.size() == 2);  // the fast model's two variants only
    for (const Decision& d : tick.decisions) CHECK(d.model.model_id == "fast-model");
    REQUIRE(tick.incidents.size() == 1);
    CHECK_THAT(tick.incidents.front(), Catch::Contains("slow-model") && Catch::Contains("did not plan in time"));
  }
  // A restart folds the recorded ticks the same way: the slow model's ticks are left out.
  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  auto resumed = actors::resume(*store.value(), *policy);
  REQUIRE(resumed.ok());
  CHECK(resumed.value().mismatched_decisions == 0);
}

TEST_CASE("a snapshot tick that a model does not answer in time writes no snapshot, says why, and goes on") {
  TempDir dir("silent_snapshot");
  std::vector<sim::ModelInput> models = fast_and_slow_models();
  actors::DaemonOptions options;
  options.max_ticks = 2;
  options.fleet.snapshot_every_ticks = 1;
  // The slow model's variant is still learning (300 ms) when the snapshot asks for its
  // memory, past the deadline of 0.1 s that its plan missed too.
  options.fleet.timeouts.model_s = 0.1;
  auto policy = std::make_shared<SlowForOneModel>(find_policy("hybrid").value(), "slow-model");
  auto run = testing::run_example_daemon("hybrid", dir.path.string(), options, std::move(models), nullptr, policy);
  REQUIRE(run.status == 0);
  REQUIRE(run.ticks.size() == 2);
  for (const auto& tick : run.ticks) {
    CHECK(tick.decisions.size() == 2);  // the fast model is decided all the same
    REQUIRE(tick.incidents.size() == 2);
    CHECK_THAT(tick.incidents[0], Catch::Contains("slow-model") && Catch::Contains("did not plan in time"));
    CHECK_THAT(tick.incidents[1], Catch::StartsWith("sim/slow-model: no snapshot this tick: no answer within 0.1 s"));
  }
  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  auto snapshots = store.value()->latest_snapshots();
  REQUIRE(snapshots.ok());
  CHECK(snapshots.value().empty());  // complete or not written: not the fast model's alone
}

TEST_CASE("a snapshot tick stores the fleet's and every model's snapshot, each as its model encoded it") {
  TempDir dir("snapshots");
  std::vector<sim::ModelInput> models;
  for (const char* name : {"model-a", "model-b", "model-c"}) {
    sim::FleetConfig fleet = testing::example_fleet();
    fleet.model = name;
    models.push_back({fleet, testing::example_trace(), 1});
  }
  actors::DaemonOptions options;
  options.max_ticks = 1;  // the first tick applies every target: actuations follow its decisions
  options.fleet.snapshot_every_ticks = 1;
  auto run = testing::run_example_daemon("hybrid", dir.path.string(), options, std::move(models));
  REQUIRE(run.status == 0);
  REQUIRE(run.ticks.size() == 1);
  CHECK(run.ticks.back().incidents.empty());
  auto store = storage::EventStore::open_read_only(dir.path.string());
  REQUIRE(store.ok());
  auto snapshots = store.value()->latest_snapshots();
  REQUIRE(snapshots.ok());
  std::vector<std::string> scopes;
  for (const storage::Snapshot& snapshot : snapshots.value()) {
    scopes.push_back(snapshot.scope);
    CHECK(snapshot.seq == snapshots.value().front().seq);  // one batch's, the same tick's
    CHECK(snapshot.time_s == run.ticks.back().now_s);
    if (snapshot.scope == "fleet") continue;
    auto decoded = actors::from_message_json<actors::ModelSnapshot>(nlohmann::json::from_msgpack(snapshot.bytes));
    REQUIRE(decoded.ok());
    CHECK(snapshot.scope == storage::snapshot_scope(decoded.value().model));
    CHECK(decoded.value().policy == "hybrid");
    CHECK(decoded.value().variants.size() == 2);  // both variants learned, their memories inside
  }
  CHECK(scopes == std::vector<std::string>{"fleet", "sim/model-a", "sim/model-b", "sim/model-c"});
  // The state after the tick's decision batch, written in a batch of its own: the
  // snapshot's seq is the tick's last decision, and its actuations follow it.
  std::vector<std::string> around;
  storage::EventFilter filter;
  filter.from_seq = snapshots.value().front().seq;
  filter.to_seq = filter.from_seq + 1;
  REQUIRE(store.value()->for_each(filter, [&](const storage::Event& e) {
    around.push_back(storage::event_type(e.payload));
    return true;
  }).ok());
  CHECK(around == std::vector<std::string>{"decision", "actuation"});
}

}  // namespace
}  // namespace capstan
