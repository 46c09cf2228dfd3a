// `capstan simulate` through the real binary, on the shipped Azure conversation excerpt
// (tests/data/sim, 1,000 requests) and the example fleet.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "adapters/run_binary.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/policies/policy.hpp"

using capstan::testing::run_binary;

namespace {

const std::string kTrace = std::string(CAPSTAN_TEST_DATA_DIR) + "/sim/azure_conv_excerpt.csv";
const std::string kFleet = std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/fleet.yaml";

std::string base_args() { return "simulate --trace " + kTrace + " --fleet " + kFleet; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string tmp(const std::string& name) { return "/tmp/capstan_simulate_test_" + std::to_string(::getpid()) + name; }

}  // namespace

TEST_CASE("simulate --policy all prints the command, a header and one aligned row per registered policy") {
  // The rows are checked against the binary's own JSON: its registry is the one that ran.
  const std::string json_path = tmp(".json");
  const auto run = run_binary(base_args() + " --policy all --json " + json_path);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const auto j = nlohmann::json::parse(read_file(json_path));
  std::remove(json_path.c_str());
  const auto& policies = j["policies"];
  REQUIRE(policies.size() >= 1);
  const auto lines = lines_of(run.stdout_text);
  REQUIRE(lines.size() >= policies.size() + 4);
  CHECK(lines[0].rfind("$ capstan simulate --trace ", 0) == 0);
  const std::string& header = lines[1];
  for (const char* col : {"policy", "requests", "slo_att", "failed", "ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms",
                          "itl_p99_ms", "gpu_hours", "cost", "actions", "vs_oracle", "vs_static"})
    CHECK(header.find(col) != std::string::npos);
  // Right-aligned numeric columns end where their header ends.
  const std::size_t requests_end = header.find("requests") + std::string("requests").size();
  bool has_fixed = false;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const std::string& row = lines[2 + i];
    const std::string name = policies[i]["policy"];
    has_fixed = has_fixed || name == "fixed";
    CHECK(row.rfind(name + " ", 0) == 0);
    REQUIRE(row.size() >= requests_end);
    CHECK(row.substr(requests_end - 4, 4) == "1000");
  }
  CHECK(has_fixed);
  CHECK(lines[2 + policies.size()].rfind("oracle: ", 0) == 0);
  CHECK(run.stdout_text.find("requests/s") != std::string::npos);

  CHECK(j["trace"] == kTrace);
  CHECK(j["fleet"] == kFleet);
  CHECK(j["slo"]["ttft_ms"] == 2000);
  CHECK(j["slo"]["itl_ms"] == 100);
  CHECK(j["oracle"]["gpu_hours"].is_number());
  CHECK(j["oracle"]["method"] == "fleet");
  CHECK(j["static_fleet"]["best"]["gpu_hours"].is_number());
  CHECK(j["per_replica_estimate"]["method"] == "per-replica estimate (not a bound)");
  for (const auto& p : policies) {
    for (const char* field : {"policy", "requests", "slo_attainment", "failed", "ttft_p50_ms", "ttft_p99_ms",
                              "itl_p50_ms", "itl_p99_ms", "gpu_hours", "cost", "scale_actions",
                              "gpu_hours_vs_oracle", "vs_static"})
      CHECK(p.contains(field));
    CHECK(p["requests"] == 1000);
    CHECK(p["slo_attainment"].get<double>() >= 0);
    CHECK(p["slo_attainment"].get<double>() <= 1);
  }
}

TEST_CASE("simulate with the same seed writes identical JSON bytes, and a report that opens offline") {
  const std::string a = tmp("a.json"), b = tmp("b.json"), html = tmp(".html");
  const std::string args = base_args() + " --policy fixed --seed 7 --tick-s 15 --window 0:150";
  REQUIRE(run_binary(args + " --json " + a + " --report " + html).exit_status == 0);
  REQUIRE(run_binary(args + " --json " + b).exit_status == 0);
  const std::string ja = read_file(a), jb = read_file(b), page = read_file(html);
  std::remove(a.c_str());
  std::remove(b.c_str());
  std::remove(html.c_str());
  CHECK(!ja.empty());
  CHECK(ja == jb);
  CHECK(page.rfind("<!doctype html>", 0) == 0);
  CHECK(page.find("uPlot") != std::string::npos);
  CHECK(page.find("<script src=") == std::string::npos);
}

TEST_CASE("simulate --seeds runs every seed and reports each figure's median and worst") {
  const std::string path = tmp("seeds.json");
  const auto run = run_binary(base_args() + " --policy fixed --window 0:150 --seeds 1-3 --json " + path);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const auto j = nlohmann::json::parse(read_file(path));
  std::remove(path.c_str());
  CHECK(j["seeds"] == nlohmann::json({1, 2, 3}));
  REQUIRE(j["per_seed"].size() == 3);
  const auto& fixed = j["aggregate"]["policies"][0];
  CHECK(fixed["policy"] == "fixed");
  std::vector<double> attainment;
  for (const auto& s : j["per_seed"]) attainment.push_back(s["policies"][0]["slo_attainment"]);
  std::sort(attainment.begin(), attainment.end());
  CHECK(fixed["slo_attainment"]["median"] == attainment[1]);
  CHECK(fixed["slo_attainment"]["worst"] == attainment[0]);
  CHECK(run.stdout_text.find("median (worst)") != std::string::npos);
  CHECK(run.stdout_text.find("seed 3: oracle") != std::string::npos);
  CHECK(run_binary(base_args() + " --policy fixed --seeds 3-1").exit_status == 2);
  CHECK(run_binary(base_args() + " --policy fixed --seeds 1-2 --seed 4").exit_status == 2);
}

TEST_CASE("simulate rejects bad flags and files with exit status 2, naming the flag") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {base_args() + " --policy nope", "--policy"},
      {base_args() + " --policy fixed --tick-s 0", "--tick-s"},
      {base_args() + " --policy fixed --slo-ttft-ms -5", "--slo-ttft-ms"},
      {base_args() + " --policy fixed --slo-ttft-ms 0 --slo-itl-ms 0", "--slo-ttft-ms and --slo-itl-ms cannot both be 0"},
      {base_args() + " --policy fixed --slo-attainment 1", "--slo-attainment"},
      {base_args() + " --policy fixed --speedup 0", "--speedup"},
      {base_args() + " --policy fixed --rate-scale -1", "--rate-scale"},
      {base_args() + " --policy fixed --window 9:x", "--window"},
      {base_args() + " --policy hpa --hpa-target 0", "--hpa-target must be a finite number > 0, got 0"},
      {base_args() + " --policy throughput --predictor prophet",
       "--predictor must be one of constant, holt, kalman, arima, seasonal, got 'prophet'"},
      {base_args() + " --policy fixed --trace-format csv", "--trace-format"},
      {base_args() + " --policy fixed --json /nonexistent-dir/out.json", "--json"},
      {base_args() + " --policy fixed --report /nonexistent-dir/out.html", "--report"},
      {"simulate --trace /nonexistent.csv --fleet " + kFleet + " --policy fixed", "--trace"},
      {"simulate --trace " + kTrace + " --fleet /nonexistent.yaml --policy fixed", "--fleet"},
      {"simulate --trace " + kFleet + " --fleet " + kFleet + " --policy fixed", "--trace"},
      {"simulate --trace " + kTrace + " --fleet " + kTrace + " --policy fixed", "--fleet"},
      {"simulate --trace " + kTrace + " --fleet " + kFleet, "--policy"},
  };
  for (const auto& [args, flag] : cases) {
    INFO(args);
    const auto run = run_binary(args);
    CHECK(run.exit_status == 2);
    CHECK(run.stderr_text.find(flag) != std::string::npos);
  }
}

TEST_CASE("simulate --slo-attainment sets what the oracle sizes each replica for, and the JSON says so") {
  const std::string loose = tmp("loose.json"), strict = tmp("strict.json");
  const std::string args = base_args() + " --policy fixed --window 0:150";
  const auto run = run_binary(args + " --slo-attainment 0.99 --json " + strict);
  REQUIRE(run.exit_status == 0);
  CHECK(run.stdout_text.find("--slo-attainment 0.99") != std::string::npos);  // the echoed command reruns it
  REQUIRE(run_binary(args + " --slo-attainment 0.6 --json " + loose).exit_status == 0);
  const auto a = nlohmann::json::parse(read_file(loose)), b = nlohmann::json::parse(read_file(strict));
  std::remove(loose.c_str());
  std::remove(strict.c_str());
  CHECK(a["oracle"]["attainment_target"] == 0.6);
  CHECK(b["oracle"]["attainment_target"] == 0.99);
  // The policies are told the same SLO: the share their latency tails may miss, and the
  // fleet's client timeout (ops/examples/fleet.yaml: 120 s).
  CHECK(a["policy_config"]["tail_probability"].get<double>() == Approx(0.4));
  CHECK(b["policy_config"]["tail_probability"].get<double>() == Approx(0.01));
  CHECK(b["policy_config"]["client_timeout_s"] == 120);
  CHECK(a["static_fleet"]["attainment_target"] == 0.6);
  CHECK(b["oracle"]["gpu_hours"].get<double>() >= a["oracle"]["gpu_hours"].get<double>());
  CHECK(b["static_fleet"]["best"]["gpu_hours"].get<double>() >= a["static_fleet"]["best"]["gpu_hours"].get<double>());
  for (const auto& [variant, rate] : a["per_replica_estimate"]["sustainable_rps_per_replica"].items()) {
    INFO(variant);
    CHECK(b["per_replica_estimate"]["sustainable_rps_per_replica"][variant].get<double>() < rate.get<double>());
  }
}

TEST_CASE("simulate --record writes each tick's input and decisions, and replaying them decides the same") {
  const std::string path = tmp(".ticks.jsonl");
  const auto run = run_binary(base_args() + " --policy hybrid --policy queueing --record " + path);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const auto lines = lines_of(read_file(path));
  std::remove(path.c_str());
  REQUIRE(lines.size() > 10);
  std::map<std::string, std::unique_ptr<capstan::Policy>> replayed;
  capstan::PolicyConfig config;
  config.slo = {2000, 100};
  config.tail_probability = 1 - 0.95;  // simulate's default attainment, as policy_settings.cpp computes it
  config.client_timeout_s = 120;   // the example fleet's
  std::map<std::string, int> ticks;
  for (const std::string& line : lines) {
    auto record = capstan::decode_tick_record(nlohmann::json::parse(line));
    REQUIRE(record.ok());
    const auto& r = record.value();
    ++ticks[r.policy];
    REQUIRE(r.decisions.size() == 2);  // the example fleet's two variants
    auto& policy = replayed[r.policy];
    if (!policy) policy = std::move(capstan::make_policy(r.policy, config)).value();
    CHECK(policy->tick(r.input) == r.decisions);
  }
  CHECK(ticks.size() == 2);
  CHECK(ticks["hybrid"] == ticks["queueing"]);
}

TEST_CASE("simulate --slo-ttft-ms 0 sizes by ITL alone: the SLO-sized policies run and scale instead of holding") {
  // The shipped 15-minute code trace outgrows the example fleet, so a policy that sizes
  // by the SLO acts; with a TTFT target of 0 queueing and throughput once held every tick.
  const std::string json_path = tmp("ttft0.json");
  const auto run = run_binary("simulate --trace " + std::string(CAPSTAN_SOURCE_DIR) +
                              "/ops/examples/azure_code_15min.csv --fleet " + kFleet +
                              " --slo-ttft-ms 0 --policy queueing --policy throughput --policy hybrid --policy erlang"
                              " --json " + json_path);
  INFO(run.stdout_text << run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const auto j = nlohmann::json::parse(read_file(json_path));
  std::remove(json_path.c_str());
  CHECK(j["slo"]["ttft_ms"] == 0);
  CHECK(j["slo"]["itl_ms"] == 100);
  REQUIRE(j["policies"].size() == 4);
  for (const auto& p : j["policies"]) {
    INFO(p["policy"]);
    CHECK(p["scale_actions"].get<int>() > 0);
    CHECK(p["error"].is_null());
  }
}

TEST_CASE("simulate warns on stderr about a quantised trace, and --spread-buckets spreads it without a warning") {
  const std::string trace = tmp("_bucketed.csv");
  {
    std::ofstream out(trace);
    for (int bucket = 0; bucket < 40; ++bucket)
      for (int i = 0; i < 5; ++i) out << 3 * bucket << ",200,20\n";
  }
  const std::string args = "simulate --trace " + trace + " --fleet " + kFleet + " --policy hpa";
  const auto bursts = run_binary(args, 60);
  CHECK(bursts.exit_status == 0);
  CHECK_THAT(bursts.stderr_text, Catch::Contains("capstan: warning: " + trace + ": 80% of the first 200 requests") &&
                                     Catch::Contains("--spread-buckets 3 spreads them"));
  const auto spread = run_binary(args + " --spread-buckets 3", 60);
  CHECK(spread.exit_status == 0);
  CHECK(spread.stderr_text.empty());
  CHECK_THAT(spread.stdout_text, Catch::Contains("--spread-buckets 3"));  // echoed in the command line
  std::remove(trace.c_str());
}

TEST_CASE("simulate --hpa-target sets what the hpa policy targets per replica, and the command echoes it") {
  const auto row = [](const std::string& out) {
    const auto at = out.find("\nhpa ");
    REQUIRE(at != std::string::npos);
    return out.substr(at, out.find('\n', at + 1) - at);
  };
  const auto standard = run_binary(base_args() + " --policy hpa");
  const auto eager = run_binary(base_args() + " --policy hpa --hpa-target 1");
  REQUIRE(standard.exit_status == 0);
  REQUIRE(eager.exit_status == 0);
  CHECK_THAT(eager.stdout_text, Catch::Contains("--hpa-target 1"));
  CHECK(row(eager.stdout_text) != row(standard.stdout_text));  // 1 request per replica scales where 32 does not
}

TEST_CASE("simulate --predictor sets throughput's load predictor (ARIMA by default, as Dynamo's), and the command echoes it") {
  const auto forecast_of = [](const std::string& out) {
    const auto at = out.find("\nthroughput ");
    REQUIRE(at != std::string::npos);
    return out.substr(at, out.find('\n', at + 1) - at);
  };
  const auto standard = run_binary(base_args() + " --policy throughput");
  const auto arima = run_binary(base_args() + " --policy throughput --predictor arima");
  const auto holt = run_binary(base_args() + " --policy throughput --predictor holt");
  REQUIRE(standard.exit_status == 0);
  REQUIRE(arima.exit_status == 0);
  REQUIRE(holt.exit_status == 0);
  CHECK_THAT(holt.stdout_text, Catch::Contains("--predictor holt"));
  CHECK(forecast_of(arima.stdout_text) == forecast_of(standard.stdout_text));
  CHECK(forecast_of(holt.stdout_text) != forecast_of(standard.stdout_text));
}
