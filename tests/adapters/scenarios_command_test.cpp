// `capstan scenarios` through the real binary: the list of shipped scenarios, the JSON
// field names and the exit codes, on short test scenarios (tests/data/scenarios).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "adapters/run_binary.hpp"
#include "domain/codec/tick_input_codec.hpp"

using capstan::testing::run_binary;

namespace {

const std::string kTestDir = std::string(CAPSTAN_TEST_DATA_DIR) + "/scenarios";
const std::string kShipped = std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tmp(const std::string& name) { return "/tmp/capstan_scenarios_test_" + std::to_string(::getpid()) + name; }

}  // namespace

TEST_CASE("scenarios list prints every shipped scenario with its description") {
  const auto run = run_binary("scenarios list --dir " + kShipped);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  CHECK(run.stdout_text.rfind("scenario", 0) == 0);
  for (const char* name : {"steady ", "idle ", "burst ", "slow-start ", "metrics-gap ", "metrics-stale ", "diurnal ", "budget "})
    CHECK(run.stdout_text.find(std::string("\n") + name) != std::string::npos);
}

TEST_CASE("scenarios run writes the JSON the issue names and prints the matrix, the checks and the wall time") {
  const std::string json_path = tmp(".json"), report_path = tmp(".html");
  const auto run = run_binary("scenarios run --dir " + kTestDir + " --only tiny-pass --policy hybrid --policy fixed" +
                              " --duration-s 120 --json " + json_path + " --report " + report_path);
  INFO(run.stdout_text << run.stderr_text);
  CHECK(run.exit_status == 0);
  const auto j = nlohmann::json::parse(read_file(json_path));
  const std::string html = read_file(report_path);
  std::remove(json_path.c_str());
  std::remove(report_path.c_str());
  REQUIRE(j.size() == 1);
  const auto& rows = j.at("scenarios");
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    CHECK(row.size() == 8);  // the issue-9 four, the seed, the run's GPU-hours beside the best static fleet's
    for (const char* key : {"seed", "gpu_hours", "static_gpu_hours", "vs_static"}) CHECK(row.contains(key));
    CHECK(row.at("scenario") == "tiny-pass");
    CHECK(row.at("passed") == true);
    REQUIRE(row.at("checks").size() == 2);
    for (const auto& c : row.at("checks"))
      for (const char* key : {"name", "value", "limit", "passed"}) CHECK(c.contains(key));
  }
  CHECK(rows[0].at("policy") == "hybrid");
  CHECK(rows[1].at("policy") == "fixed");
  CHECK(run.stdout_text.find("tiny-pass") != std::string::npos);
  CHECK(run.stdout_text.find("slo_attainment ") != std::string::npos);
  CHECK(run.stdout_text.find("s wall") != std::string::npos);
  CHECK(html.find("<!DOCTYPE html>") == 0);
}

TEST_CASE("scenarios run exits 1 when hybrid fails a scenario, whatever its peers do") {
  const auto run = run_binary("scenarios run --dir " + kTestDir + " --only tiny-fail --policy all --duration-s 60");
  CHECK(run.exit_status == 1);
  CHECK(run.stdout_text.find("FAIL") != std::string::npos);
}

TEST_CASE("scenarios run --record writes each run's ticks to a file per scenario, policy and seed") {
  const std::string dir = tmp("_record");
  std::filesystem::remove_all(dir);
  const auto run = run_binary("scenarios run --dir " + kTestDir + " --only tiny-pass --policy hybrid --policy fixed" +
                              " --seeds 1,2 --duration-s 120 --record " + dir);
  INFO(run.stdout_text << run.stderr_text);
  CHECK(run.exit_status == 0);
  CHECK(run.stdout_text.find("--record " + dir) != std::string::npos);
  for (const char* policy : {"hybrid", "fixed"}) {
    for (const char* seed : {"1", "2"}) {
      const std::string path = dir + "/tiny-pass." + policy + ".seed" + seed + ".jsonl";
      INFO(path);
      std::ifstream in(path);
      REQUIRE(in);
      std::string line;
      double last_s = -1;
      int ticks = 0;
      while (std::getline(in, line)) {
        auto tick = capstan::decode_tick_record(nlohmann::json::parse(line));
        REQUIRE(tick.ok());
        CHECK(tick.value().policy == policy);
        CHECK(tick.value().input.now_s > last_s);
        CHECK(tick.value().decisions.size() == tick.value().input.models.at(0).variants.size());
        last_s = tick.value().input.now_s;
        ++ticks;
      }
      CHECK(ticks >= 4);  // 120 s at a 30 s tick
    }
  }
  std::filesystem::remove_all(dir);
  const auto bad = run_binary("scenarios run --dir " + kTestDir + " --only tiny-pass --record /proc/nope");
  CHECK(bad.exit_status == 2);
  CHECK(bad.stderr_text.find("--record: cannot make folder '/proc/nope'") != std::string::npos);
}

TEST_CASE("scenarios run exits 2 naming the bad flag, scenario or file") {
  auto run = run_binary("scenarios run --dir " + kTestDir + " --only nope");
  CHECK(run.exit_status == 2);
  CHECK(run.stderr_text.find("--only: no scenario 'nope'") != std::string::npos);
  run = run_binary("scenarios run --dir " + kTestDir + " --policy nope");
  CHECK(run.exit_status == 2);
  CHECK(run.stderr_text.find("unknown policy 'nope'") != std::string::npos);
  run = run_binary("scenarios run --dir /nonexistent/scenarios");
  CHECK(run.exit_status == 2);
  run = run_binary("scenarios run --dir " + kTestDir + " --duration-s -1");
  CHECK(run.exit_status == 2);
  CHECK(run.stderr_text.find("--duration-s must be >= 0") != std::string::npos);
  const std::string bad_dir = tmp("_bad");
  std::filesystem::create_directories(bad_dir);
  std::ofstream(bad_dir + "/x.yaml") << "name: x\n";
  run = run_binary("scenarios run --dir " + bad_dir);
  CHECK(run.exit_status == 2);
  CHECK(run.stderr_text.find(bad_dir + "/x.yaml: fleet is required") != std::string::npos);
  std::filesystem::remove_all(bad_dir);
}
