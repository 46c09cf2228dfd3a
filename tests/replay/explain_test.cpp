// replay/explain.* and `capstan replay explain`: the reasoning of the decision at a time,
// from the recorded events.
#include <catch2/catch.hpp>

#include <sstream>

#include "replay/explain.hpp"
#include "replay_test_support.hpp"

namespace capstan::replay {
namespace {

using namespace capstan::testing;

const ModelKey kModel{"sim", "meta-llama/Llama-2-70b-hf"};

TEST_CASE("explain takes the last tick at or before the time asked, one record per variant") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  auto at = decisions_at(*store.value(), kModel, 610);
  REQUIRE(at.ok());
  REQUIRE(at.value().size() == 2);
  for (const DecisionRecord& r : at.value()) {
    CHECK(r.time_s == 600);
    CHECK(r.tick == 20);
    CHECK(r.observation.has_value());
    CHECK(r.observed_variant() != nullptr);
    CHECK(r.capacity.has_value());
  }
  auto none = decisions_at(*store.value(), kModel, 29);
  REQUIRE(none.ok());
  CHECK(none.value().empty());
}

TEST_CASE("capstan replay explain prints inputs, SLO resolution, parameters, lambda*, required replicas, stages and the final target") {
  const auto run = run_binary("replay explain --data " + recorded_history() + " --at 6m30s --model " +
                                  "sim/meta-llama/Llama-2-70b-hf",
                              60);
  INFO(run.stderr_text);
  // 6m30s is not one unit: refused, naming the flag.
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--at: '6m30s' is not a time"));
  const auto ok = run_binary("replay explain --data " + recorded_history() + " --at 450 --model sim/meta-llama/Llama-2-70b-hf", 60);
  INFO(ok.stderr_text);
  REQUIRE(ok.exit_status == 0);
  for (const char* part : {"decision of sim/meta-llama/Llama-2-70b-hf at t=450 s (tick 15",
                           "inputs (the observation the tick used):", "router: ", "forecast: ",
                           "SLO: TTFT 2000 ms, ITL 100 ms from [explicit] > derived > observed",
                           "learned parameters: alpha ", "capacity: lambda* ", "replicas required", "optimizer: ",
                           "final target: "})
    CHECK_THAT(ok.stdout_text, Catch::Contains(part));
  // A stage that changed the target is printed between the optimizer and the final
  // target: at t=720 s of the store main at 128590d wrote (tests/data/stores/README.md),
  // hybrid wanted 5 H100 and the enforcer's cooldown held 7. The demo's run above holds
  // its fleet through its releases' cooldowns, so no stage acts in it.
  const std::string data = test_dir("explain_stages");
  std::filesystem::copy(std::string(CAPSTAN_SOURCE_DIR) + "/tests/data/stores/main-128590d", data);
  const auto held = run_binary("replay explain --data " + data + " --at 720 --model sim/meta-llama/Llama-2-70b-hf", 60);
  INFO(held.stderr_text);
  REQUIRE(held.exit_status == 0);
  for (const char* part : {"optimizer: 7 -> 5", "stage enforcer: 5 -> 7 (cooldown)",
                           "final target: 7 -> 7 [cooldown] hold at 7, wanted 5"})
    CHECK_THAT(held.stdout_text, Catch::Contains(part));
  std::filesystem::remove_all(data);
}

TEST_CASE("capstan replay explain names an unknown model, a missing flag and a time before any decision") {
  const std::string data = " --data " + recorded_history();
  auto run = run_binary("replay explain" + data + " --at 600 --model sim/other", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--model: no decisions recorded for 'sim/other'"));
  run = run_binary("replay explain" + data + " --at 600", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--model"));
  run = run_binary("replay explain" + data + " --at 10 --model sim/meta-llama/Llama-2-70b-hf", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--at: sim/meta-llama/Llama-2-70b-hf has no decision at or before t=10"));
}

}  // namespace
}  // namespace capstan::replay
