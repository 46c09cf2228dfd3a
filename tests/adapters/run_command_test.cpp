// `capstan run` through the real binary: one engine with `simulate`, a restart after
// SIGKILL at random points that loses nothing durable and resumes what was learned,
// and SIGTERM that finishes the tick and exits 0.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "actors/resume.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/policies/policy.hpp"
#include "run_binary.hpp"
#include "spawned_binary.hpp"
#include "storage/event_store.hpp"

namespace capstan {
namespace {

using namespace std::chrono_literals;

std::string example(const std::string& name) { return std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/" + name; }

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("capstan_run_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::vector<Decision>> recorded_decisions(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<Decision>> out;
  for (std::string line; std::getline(in, line);) {
    auto record = decode_tick_record(nlohmann::json::parse(line));
    REQUIRE(record.ok());
    out.push_back(record.value().decisions);
  }
  return out;
}

std::vector<std::vector<Decision>> stored_decisions(const std::string& data_dir) {
  auto store = storage::EventStore::open_read_only(data_dir);
  REQUIRE(store.ok());
  std::vector<std::vector<Decision>> out;
  auto visited = store.value()->for_each({}, [&](const storage::Event& e) {
    if (std::holds_alternative<storage::TickStarted>(e.payload)) out.emplace_back();
    if (const auto* t = std::get_if<TickEvent>(&e.payload))
      if (const auto* d = std::get_if<DecisionMade>(t)) out.back().push_back(d->decision);
    return true;
  });
  REQUIRE(visited.ok());
  return out;
}

TEST_CASE("capstan run in virtual time over a trace makes exactly the decisions capstan simulate makes") {
  for (const std::string policy : {"hybrid", "erlang", "queueing"}) {
    CAPTURE(policy);
    const auto dir = fresh_dir("parity_" + policy);
    const std::string record = dir.string() + ".jsonl";
    const std::string common = " --trace " + example("azure_code_15min.csv") + " --fleet " + example("fleet.yaml") +
                               " --policy " + policy + " --seed 3";
    auto sim = testing::run_binary("simulate" + common + " --record " + record, 300);
    REQUIRE(sim.exit_status == 0);
    auto run = testing::run_binary("run --clock virtual --data-dir " + dir.string() + common, 300);
    INFO(run.stderr_text);
    REQUIRE(run.exit_status == 0);
    const auto simulated = recorded_decisions(record);
    const auto daemon = stored_decisions(dir.string());
    REQUIRE(daemon.size() == simulated.size());
    for (std::size_t t = 0; t < simulated.size(); ++t) {
      CAPTURE(t);
      REQUIRE(daemon[t] == simulated[t]);
    }
    std::filesystem::remove_all(dir);
    std::filesystem::remove(record);
  }
}

// The last parameters the store says each variant learned.
std::map<VariantKey, ParamsLearned> last_params(const storage::EventStore& store) {
  std::map<VariantKey, ParamsLearned> out;
  auto visited = store.for_each({}, [&](const storage::Event& e) {
    if (const auto* t = std::get_if<TickEvent>(&e.payload))
      if (const auto* p = std::get_if<ParamsLearned>(t)) out[p->variant] = *p;
    return true;
  });
  REQUIRE(visited.ok());
  return out;
}

TEST_CASE("SIGKILL at 20 random points: the store opens, its sequence has no gap, and the restart resumes what was learned") {
  const auto dir = fresh_dir("sigkill");
  std::mt19937 rng(20261124);
  std::uniform_int_distribution<int> wait_ms(150, 900);
  auto policy = find_policy("hybrid").value();
  std::uint64_t last_seq = 0;
  std::uint64_t last_tick = 0;
  for (int kill = 0; kill < 20; ++kill) {
    CAPTURE(kill);
    testing::SpawnedBinary daemon({"run", "--clock", "wall", "--speedup", "3000", "--connector", "dry-run",
                                   "--trace", example("azure_code_15min.csv"), "--fleet", example("fleet.yaml"),
                                   "--data-dir", dir.string(), "--tick", "30s", "--verbose"});
    REQUIRE(daemon.started());
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(rng)));
    daemon.kill_now();
    // What the dry-run connector was asked to do before the kill.
    std::vector<std::pair<std::string, int>> actuated;
    for (std::string line = daemon.read_line(200ms); !line.empty(); line = daemon.read_line(200ms)) {
      const std::string marker = "dry-run: scale ";
      if (line.rfind(marker, 0) != 0) continue;
      std::istringstream in(line.substr(marker.size()));
      std::string variant, to;
      int replicas = -1;
      in >> variant >> to >> replicas;
      actuated.emplace_back(variant, replicas);
    }

    auto store = storage::EventStore::open_read_only(dir.string());
    INFO(daemon.stderr_text());
    REQUIRE(store.ok());
    // Contiguous: every sequence from 1 to the last, each once.
    std::uint64_t expected = 1;
    std::uint64_t ticks = 0;
    std::set<std::pair<std::string, int>> decided;
    auto visited = store.value()->for_each({}, [&](const storage::Event& e) {
      REQUIRE(e.seq == expected++);
      if (const auto* t = std::get_if<storage::TickStarted>(&e.payload)) {
        REQUIRE(t->tick == ticks + 1);  // tick numbers continue across restarts
        ticks = t->tick;
      }
      if (const auto* t = std::get_if<TickEvent>(&e.payload))
        if (const auto* d = std::get_if<DecisionMade>(t))
          decided.emplace(d->decision.model.ns + "/" + d->decision.model.model_id + "/" + d->decision.variant,
                          d->decision.target_replicas);
      return true;
    });
    REQUIRE(visited.ok());
    REQUIRE(store.value()->last_sequence() == expected - 1);
    // Nothing durable was lost: the store only grows.
    REQUIRE(store.value()->last_sequence() >= last_seq);
    REQUIRE(ticks >= last_tick);
    last_seq = store.value()->last_sequence();
    last_tick = ticks;
    // No target reached the connector without its decision event.
    for (const auto& a : actuated) {
      CAPTURE(a.first, a.second);
      CHECK(decided.count(a) == 1);
    }
    // The restart's state: EKF parameters and covariances as last recorded, bit for bit.
    auto resumed = actors::resume(*store.value(), *policy);
    REQUIRE(resumed.ok());
    CHECK(resumed.value().mismatched_decisions == 0);
    for (const auto& [key, learned] : last_params(*store.value())) {
      const auto model = resumed.value().start.models.find(key.model);
      REQUIRE(model != resumed.value().start.models.end());
      const auto variant = model->second.variants.find(key.variant);
      REQUIRE(variant != model->second.variants.end());
      REQUIRE(variant->second.tuner.has_value());
      CHECK(variant->second.tuner->params == learned.params);
      CHECK(variant->second.tuner->covariance == learned.covariance);
    }
  }
  CHECK(last_tick > 20);  // the kills landed while it was deciding, not before it started
  std::filesystem::remove_all(dir);
}

TEST_CASE("SIGTERM lets the tick in flight finish and the daemon exit 0 within 5 s") {
  const auto dir = fresh_dir("sigterm");
  testing::SpawnedBinary daemon({"run", "--clock", "wall", "--speedup", "300", "--trace", example("azure_code_15min.csv"),
                                 "--fleet", example("fleet.yaml"), "--data-dir", dir.string(), "--verbose"});
  REQUIRE(daemon.started());
  REQUIRE_FALSE(daemon.read_line(20s).empty());  // it decided something
  const auto start = std::chrono::steady_clock::now();
  CHECK(daemon.terminate(5s) == 0);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  auto store = storage::EventStore::open_read_only(dir.string());
  REQUIRE(store.ok());
  CHECK(store.value()->last_sequence() > 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace capstan
