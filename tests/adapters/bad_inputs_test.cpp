// Issue 20 item 6: no input hangs capstan and none is silently accepted. Each row is
// one bad input (a trace of every format, a fleet, a scenario, an `analyze` flag or
// observation), written to a temporary folder and run through the real binary with a
// time limit: it must exit 2 (usage or input error) at once, with exactly the message
// given, which names the file and line, or the key, or the flag, and the value.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "adapters/run_binary.hpp"

using capstan::testing::run_binary;

namespace {

struct BadInput {
  const char* what;
  std::vector<std::pair<std::string, std::string>> files;  // name under {dir}, content
  std::string args;                                         // {dir}, {repo} replaced
  std::string message;                                      // stderr after "capstan: ", {dir} replaced
};

const std::string kFleet = "{repo}/ops/examples/fleet.yaml";
const std::string kSimulate = "simulate --fleet " + kFleet + " --policy hpa --trace ";

// A fleet of one variant, valid but for `extra` (appended to the variant, or to the top
// level when it starts without indentation).
std::string fleet(const std::string& variant_extra, const std::string& top_extra = "") {
  return "model: m\nprofiles_dir: {repo}/sim/profiles\n" + top_extra +
         "variants:\n"
         "  - name: h100\n"
         "    profile: llama2-70b-h100-tp4\n"
         "    cost_per_replica_hour: 12\n"
         "    cold_start_s: 240\n"
         "    initial_replicas: 1\n"
         "    num_gpu_blocks: 26000\n" +
         variant_extra;
}

// `text` with its first `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

// A scenario, valid but for the lines replaced or added.
std::string scenario(const std::string& duration = "60", const std::string& extra = "",
                     const std::string& workload = "{generator: poisson, rate_rps: 1}",
                     const std::string& limit = "0.9") {
  return "name: s\nfleet: " + kFleet + "\nworkload: " + workload + "\nduration_s: " + duration + "\n" + extra +
         "checks:\n  - {check: slo_attainment, limit: " + limit + "}\n";
}

const std::string kAzureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const std::string kTune =
    R"({"ttft_ms": 45.0, "itl_ms": 9.5, "input_tokens": 1000, "output_tokens": 100, "arrival_rate": 0.5)";
const std::string kQueue = "analyze queue --alpha 10 --beta 0.1 --gamma 0.001 --target-ttft 500 --target-itl 50 ";

std::vector<BadInput> bad_inputs() {
  return {
      // Native traces.
      {"native arrival nan (looped for ever in pull_next)", {{"t.csv", "nan,10,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 1: arrival_s must be a finite number in 0..1e+08, got 'nan'"},
      {"native arrival inf (was dropped silently)", {{"t.csv", "0,10,10\ninf,10,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 2: arrival_s must be a finite number in 0..1e+08, got 'inf'"},
      {"native arrival negative", {{"t.csv", "-1,10,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 1: arrival_s must be a finite number in 0..1e+08, got '-1'"},
      {"native arrival past the latest", {{"t.csv", "0,10,10\n1e9,10,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 2: arrival_s must be a finite number in 0..1e+08, got '1e9'"},
      {"native arrival overflowing", {{"t.csv", "1e999,10,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 1: arrival_s must be a finite number in 0..1e+08, got '1e999'"},
      {"native input tokens 0", {{"t.csv", "arrival_s,input_tokens,output_tokens\n0,0,10\n"}},
       kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 2: input_tokens must be an integer in 1..10000000, got '0'"},
      {"native output tokens too many", {{"t.csv", "0,10,20000000\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 1: output_tokens must be an integer in 1..10000000, got '20000000'"},
      {"native input tokens not an integer", {{"t.csv", "0,1.5,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 1: input_tokens must be an integer in 1..10000000, got '1.5'"},
      {"native arrivals going back", {{"t.csv", "5,10,10\n4,10,10\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: line 2: arrival_s goes back in time (4)"},
      {"native header only", {{"t.csv", "arrival_s,input_tokens,output_tokens\n"}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: empty trace: no requests"},
      {"empty file", {{"t.csv", ""}}, kSimulate + "{dir}/t.csv",
       "--trace: {dir}/t.csv: empty trace, cannot detect its format"},
      // Azure CSV.
      {"Azure header only (ran for over 900 s)", {{"a.csv", kAzureHeader}}, kSimulate + "{dir}/a.csv",
       "--trace: {dir}/a.csv: empty trace: no requests"},
      {"Azure ContextTokens negative", {{"a.csv", kAzureHeader + "2023-11-16 18:15:46.6805900,-5,10\n"}},
       kSimulate + "{dir}/a.csv",
       "--trace: {dir}/a.csv: line 2: ContextTokens must be an integer in 0..10000000, got '-5'"},
      {"Azure GeneratedTokens nan", {{"a.csv", kAzureHeader + "2023-11-16 18:15:46.6805900,5,nan\n"}},
       kSimulate + "{dir}/a.csv",
       "--trace: {dir}/a.csv: line 2: GeneratedTokens must be an integer in 0..10000000, got 'nan'"},
      {"Azure month 13", {{"a.csv", kAzureHeader + "2023-13-16 18:15:46.6805900,5,5\n"}}, kSimulate + "{dir}/a.csv",
       "--trace: {dir}/a.csv: line 2: bad TIMESTAMP '2023-13-16 18:15:46.6805900'"},
      {"Azure rows years apart",
       {{"a.csv", kAzureHeader + "2023-11-16 18:15:46.68,5,5\n2030-11-16 18:15:46.68,5,5\n"}},
       kSimulate + "{dir}/a.csv",
       "--trace: {dir}/a.csv: line 3: TIMESTAMP is more than 1e+08 s after the first row (2030-11-16 18:15:46.68)"},
      // Mooncake JSON lines.
      {"Mooncake timestamp negative", {{"m.jsonl", R"({"timestamp": -1, "input_length": 5, "output_length": 5})" "\n"}},
       kSimulate + "{dir}/m.jsonl", "--trace: {dir}/m.jsonl: line 1: timestamp must be an integer in 0..100000000000 (ms)"},
      {"Mooncake timestamp fractional",
       {{"m.jsonl", R"({"timestamp": 1.5, "input_length": 5, "output_length": 5})" "\n"}}, kSimulate + "{dir}/m.jsonl",
       "--trace: {dir}/m.jsonl: line 1: timestamp must be an integer in 0..100000000000 (ms)"},
      {"Mooncake input length 0", {{"m.jsonl", R"({"timestamp": 0, "input_length": 0, "output_length": 5})" "\n"}},
       kSimulate + "{dir}/m.jsonl", "--trace: {dir}/m.jsonl: line 1: input_length must be an integer in 1..10000000"},
      {"Mooncake output length beyond int",
       {{"m.jsonl", R"({"timestamp": 0, "input_length": 5, "output_length": 10000000000000})" "\n"}},
       kSimulate + "{dir}/m.jsonl", "--trace: {dir}/m.jsonl: line 1: output_length must be an integer in 1..10000000"},
      {"Mooncake timestamp beyond uint64",
       {{"m.jsonl", R"({"timestamp": 18446744073709551615, "input_length": 5, "output_length": 5})" "\n"}},
       kSimulate + "{dir}/m.jsonl", "--trace: {dir}/m.jsonl: line 1: timestamp must be an integer in 0..100000000000 (ms)"},
      // ServeGen rate windows.
      {"ServeGen rate nan", {{"chunk-1-trace.csv", "0,nan,1,Gamma,1,1\n"}}, kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: rate must be a finite number in 0..1e+06, got 'nan'"},
      {"ServeGen rate inf", {{"chunk-1-trace.csv", "0,inf,1,Gamma,1,1\n"}}, kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: rate must be a finite number in 0..1e+06, got 'inf'"},
      {"ServeGen rate too high to generate", {{"chunk-1-trace.csv", "0,1e9,1,Gamma,1,1\n"}},
       kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: rate must be a finite number in 0..1e+06, got '1e9'"},
      {"ServeGen shape 0 in an active window", {{"chunk-1-trace.csv", "0,1,1,Gamma,0,1\n"}},
       kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: an active window needs shape >= 0.001 and scale > 0, got 0 and 1"},
      {"ServeGen Weibull whose mean overflows (gaps of 0: a hang)", {{"chunk-1-trace.csv", "0,1,1,Weibull,0.001,1\n"}},
       kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: Weibull shape 0.001 and scale 1 give a mean gap of inf, which "
       "cannot be rescaled to rate 1"},
      {"ServeGen scale nan", {{"chunk-1-trace.csv", "0,1,1,Gamma,1,nan\n"}}, kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: shape and scale must be finite numbers, got '1' and 'nan'"},
      {"ServeGen window start nan", {{"chunk-1-trace.csv", "nan,1,1,Gamma,1,1\n"}},
       kSimulate + "{dir}/chunk-1-trace.csv",
       "--trace: {dir}/chunk-1-trace.csv: line 1: window start must be a finite number in 0..1e+08, got 'nan'"},
      {"ServeGen windows going back", {{"chunk-1-trace.csv", "600,1,1,Gamma,1,1\n0,1,1,Gamma,1,1\n"}},
       kSimulate + "{dir}/chunk-1-trace.csv", "--trace: {dir}/chunk-1-trace.csv: line 2: window start does not increase (0)"},
      {"ServeGen window past the end", {{"chunk-1-trace.csv", "0,1,1,Gamma,1,1\n"}},
       kSimulate + "{dir}/chunk-1-trace.csv --window 7200:9000",
       "--trace: {dir}/chunk-1-trace.csv: no requests in the window 7200:9000 s"},
      // Replay flags.
      {"--window FROM nan", {{"t.csv", "0,10,10\n"}}, kSimulate + "{dir}/t.csv --window nan:10",
       "--window: window FROM must be a number >= 0, got 'nan'"},
      {"--rate-scale past its bound", {{"t.csv", "0,10,10\n"}}, kSimulate + "{dir}/t.csv --rate-scale 1e6",
       "rate scale must be > 0 and <= 1000, got 1e+06"},
      {"--speedup past its bound", {{"t.csv", "0,10,10\n"}}, kSimulate + "{dir}/t.csv --speedup 1e-9",
       "speedup must be in 0.001..1e+06, got 1e-09"},
      {"--spread-buckets negative", {{"t.csv", "0,10,10\n"}}, kSimulate + "{dir}/t.csv --spread-buckets -1",
       "spread of same-timestamp requests must be in 0..3600 s, got -1"},
      // Fleets.
      {"fleet cold_start_s .nan (printed a NaN oracle, exit 0)",
       {{"f.yaml", with(fleet("    pending_s: 30\n"), "cold_start_s: 240", "cold_start_s: .nan")},
        {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: variants[0].cold_start_s must be a finite number, got .nan"},
      {"fleet misspelt max_replicass (was ignored)", {{"f.yaml", fleet("    max_replicass: 4\n")}, {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: variants[0].max_replicass is not a known key (known: name, profile, "
       "cost_per_replica_hour, gpus_per_replica, pending_s, cold_start_s, min_replicas, max_replicas, "
       "initial_replicas, max_num_seqs, max_num_batched_tokens, num_gpu_blocks, block_size, role)"},
      {"fleet unknown top-level key", {{"f.yaml", fleet("", "client_timeout: 120\n")}, {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: client_timeout is not a known key (known: model, profiles_dir, client_timeout_s, "
       "hpa_target_per_replica, kv_transfer, variants)"},
      {"fleet cost .inf", {{"f.yaml", with(fleet(""), "cost_per_replica_hour: 12", "cost_per_replica_hour: .inf")},
                           {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: variants[0].cost_per_replica_hour must be a finite number, got .inf"},
      {"fleet max_replicas negative", {{"f.yaml", fleet("    max_replicas: -1\n")}, {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: variants[0].max_replicas must be >= 0, got -1"},
      {"fleet kv_transfer gbps nan", {{"f.yaml", fleet("", "kv_transfer: {gbps: .nan}\n")}, {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: kv_transfer.gbps must be a finite number, got .nan"},
      {"fleet client timeout negative", {{"f.yaml", fleet("", "client_timeout_s: -3\n")}, {"t.csv", "0,10,10\n"}},
       "simulate --fleet {dir}/f.yaml --policy hpa --trace {dir}/t.csv",
       "--fleet: {dir}/f.yaml: client_timeout_s must be >= 0, got -3"},
      // Scenarios.
      {"scenario duration_s .nan (hung)", {{"s/s.yaml", scenario(".nan")}}, "scenarios list --dir {dir}/s",
       "{dir}/s/s.yaml: duration_s must be a finite number, got .nan"},
      {"scenario check limit .nan (exited 1)", {{"s/s.yaml", scenario("60", "", "{generator: poisson, rate_rps: 1}", ".nan")}},
       "scenarios run --dir {dir}/s --policy hpa", "{dir}/s/s.yaml: checks[0].limit must be a finite number, got .nan"},
      {"scenario tick too small for its duration", {{"s/s.yaml", scenario("86400", "tick_s: 0.001\n")}},
       "scenarios list --dir {dir}/s", "{dir}/s/s.yaml: tick_s must be >= duration_s / 1e+07 (0.00864), got 0.001"},
      {"scenario Poisson rate too high to generate",
       {{"s/s.yaml", scenario("60", "", "{generator: poisson, rate_rps: 1e9}")}}, "scenarios list --dir {dir}/s",
       "{dir}/s/s.yaml: workload.rate_rps must be <= 1e+06, got 1e+09"},
      {"scenario step rate nan",
       {{"s/s.yaml", scenario("60", "", "{generator: step, steps: [[0, .nan]]}")}}, "scenarios list --dir {dir}/s",
       "{dir}/s/s.yaml: workload.steps[0] must have start_s in 0..1e+12 and rate_rps in 0..1e+06, got [0, NaN]"},
      {"scenario slo ttft .inf", {{"s/s.yaml", scenario("60", "slo: {ttft_ms: .inf}\n")}}, "scenarios list --dir {dir}/s",
       "{dir}/s/s.yaml: slo.ttft_ms must be a finite number, got .inf"},
      {"scenario misspelt key", {{"s/s.yaml", scenario("60", "tick: 30\n")}}, "scenarios list --dir {dir}/s",
       "{dir}/s/s.yaml: tick is not a known key (known: name, description, fleet, workload, models, gpu_budget, "
       "duration_s, tick_s, seed, slo, scale_to_zero_retention_s, scale_down_cooldown_s, metrics_gap, policy, checks)"},
      // analyze flags and observations.
      {"analyze queue --input-tokens 1e308 (printed lambda_star 0)", {}, kQueue + "--input-tokens 1e308 --output-tokens 100",
       "--input-tokens must be <= 1e+07, got 1e+308"},
      {"analyze queue --alpha 0", {}, "analyze queue --alpha 0 --beta 0.1 --gamma 0.001 --input-tokens 100 "
                                      "--output-tokens 100 --target-ttft 500 --target-itl 50",
       "--alpha must be > 0, got 0"},
      {"analyze queue --max-batch 0", {}, kQueue + "--input-tokens 100 --output-tokens 100 --max-batch 0",
       "--max-batch must be >= 1, got 0"},
      {"analyze queue --rate 1e300", {}, kQueue + "--input-tokens 100 --output-tokens 100 --rate 1e300",
       "--rate must be <= 1e+09, got 1e+300"},
      {"analyze tune without max_batch (exit 0)", {{"o.jsonl", kTune + "}\n"}}, "analyze tune --input {dir}/o.jsonl",
       "{dir}/o.jsonl:1: missing field \"max_batch\""},
      {"analyze tune input_tokens 1e308", {{"o.jsonl", kTune.substr(0, kTune.find("\"input_tokens\"")) +
                                                           R"("input_tokens": 1e308, "output_tokens": 100, "arrival_rate": 0.5, "max_batch": 8})" "\n"}},
       "analyze tune --input {dir}/o.jsonl", "{dir}/o.jsonl:1: field \"input_tokens\" must be in 0..1e+07, got 1e+308"},
      {"analyze erlang --service-rate 1e12", {},
       "analyze erlang --arrival-rate 1 --service-rate 1e12 --sla-seconds 1 --servers 2",
       "--service-rate must be <= 1e+09, got 1e+12"},
      {"analyze forecast horizon of a million years", {{"series.txt", "1\n2\n"}},
       "analyze forecast --series {dir}/series.txt --horizon-s 3e13", "--horizon-s must be <= 3.16224e+07, got 3e+13"},
      {"analyze slo --observed-ttft negative", {}, "analyze slo --observed-ttft -5", "--observed-ttft must be >= 0, got -5"},
  };
}

std::string replaced(std::string text, const std::string& dir) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{dir}", dir}, {"{repo}", CAPSTAN_SOURCE_DIR}})
    for (auto pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + value.size()))
      text.replace(pos, key.size(), value);
  return text;
}

}  // namespace

TEST_CASE("Every bad input exits 2 at once with a message naming the file, line or key, and the value") {
  const auto cases = bad_inputs();
  REQUIRE(cases.size() >= 40);
  const auto dir = (std::filesystem::temp_directory_path() / "capstan_bad_inputs").string();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BadInput& c = cases[i];
    std::filesystem::remove_all(dir);
    for (const auto& [name, content] : c.files) {
      const auto path = std::filesystem::path(dir) / name;
      std::filesystem::create_directories(path.parent_path());
      std::ofstream(path) << replaced(content, dir);
    }
    std::filesystem::create_directories(dir);
    const auto run = run_binary(replaced(c.args, dir), 30);
    INFO("case " << i << ": " << c.what << "\n  capstan " << replaced(c.args, dir));
    CHECK(run.exit_status != 124);  // timed out: a hang
    CHECK(run.exit_status == 2);
    CHECK(run.stderr_text == "capstan: " + replaced(c.message, dir) + "\n");
  }
  std::filesystem::remove_all(dir);
}
