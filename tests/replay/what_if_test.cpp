// replay/what_if.* and `capstan replay what-if`: the recorded configuration changes
// nothing; another policy or another SLO changes decisions, and the output says it
// replays observed demand.
#include <catch2/catch.hpp>

#include <fstream>

#include "replay/what_if.hpp"
#include "replay_test_support.hpp"

namespace capstan::replay {
namespace {

using namespace capstan::testing;

const std::string kDemo = std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/capstan.yaml";

TEST_CASE("what-if under the recorded policy and configuration changes no decision") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  auto report = what_if(*store.value(), {});
  REQUIRE(report.ok());
  CHECK(report.value().ticks == 30);
  CHECK(report.value().changed == 0);
  REQUIRE(report.value().variants.size() == 2);
  for (const VariantDifference& v : report.value().variants) {
    CHECK(v.decisions == 30);
    CHECK(v.changed == 0);
    CHECK(v.what_if_replica_hours == v.recorded_replica_hours);
    CHECK(v.recorded_replica_hours > 0);
  }
}

TEST_CASE("capstan replay what-if with the very configuration file the daemon ran under reports zero changes") {
  const auto run = run_binary("replay what-if --data " + recorded_history() + " --config " + kDemo, 60);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.stdout_text, Catch::Contains("decisions that would change (target or reason): 0"));
  CHECK_THAT(run.stdout_text, Catch::Contains("replays the demand and fleet that were observed"));
  CHECK_THAT(run.stdout_text, Catch::Contains("+0.000"));
}

TEST_CASE("capstan replay what-if under another policy reports changed decisions with both reasons") {
  const auto run = run_binary("replay what-if --data " + recorded_history() + " --policy erlang", 60);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.stdout_text, Catch::Contains("recorded policy hybrid -> erlang"));
  CHECK_THAT(run.stdout_text, !Catch::Contains("would change (target or reason): 0\n"));
  CHECK_THAT(run.stdout_text, Catch::Contains("    recorded: "));
  CHECK_THAT(run.stdout_text, Catch::Contains("    what-if:  "));
}

TEST_CASE("capstan replay what-if under a tighter SLO asks for more replica-hours") {
  // The demo configuration with a TTFT target a quarter of the recorded one.
  std::ifstream in(kDemo);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string from = "  ttft_ms: 2000";
  REQUIRE(yaml.find(from) != std::string::npos);
  yaml.replace(yaml.find(from), from.size(), "  ttft_ms: 500");
  for (const std::string key : {"sim_trace: ", "sim_fleet: "}) {
    const std::size_t at = yaml.find(key) + key.size();
    yaml.insert(at, std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/");
  }
  const std::string path = test_dir("tight") + ".yaml";
  std::ofstream(path) << yaml;
  const auto run = run_binary("replay what-if --data " + recorded_history() + " --config " + path, 60);
  std::filesystem::remove(path);
  INFO(run.stdout_text + run.stderr_text);
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.stdout_text, Catch::Contains("TTFT 2000 ms, ITL 100 ms (explicit) -> TTFT 500 ms, ITL 100 ms (explicit)"));
  CHECK_THAT(run.stdout_text, !Catch::Contains("would change (target or reason): 0\n"));
}

TEST_CASE("capstan replay what-if names a bad flag with exit status 2") {
  auto run = run_binary("replay what-if --data " + recorded_history(), 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--config FILE, --policy P"));
  run = run_binary("replay what-if --data " + recorded_history() + " --policy nosuch", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--policy: "));
  run = run_binary("replay what-if --data " + recorded_history() + " --config /nonexistent.yaml", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--config: "));
}

}  // namespace
}  // namespace capstan::replay
