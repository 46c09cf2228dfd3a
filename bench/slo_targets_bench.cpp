// Issue 22's yardstick: `hybrid` at SLO attainment 0.99 on six traffic sources (the
// Azure code trace twice: on the fleet of the other sources and on one wide enough), each
// run as `capstan simulate --policy all --slo-attainment 0.99 --seeds 1-8`, judged by
// sim/report/slo_targets.hpp: does it reach 0.99, at no more GPU-hours than the best
// static fleet that meets 0.99, and at no more than 0.75x the GPU-hours of every peer
// with equal or better attainment -- at the median and at the worst seed. Prints each
// simulate table as it runs, a verdict per source and a summary, every figure beside the
// command it comes from. Asserts nothing; the exit status is 0 unless a run fails.
//
// Run (from anywhere): build/bench/slo_targets_bench [SOURCE ...]   (default: all seven)
//   CAPSTAN=path   the capstan binary to measure (default: this build's, ../capstan)
//   SEEDS=1-2      seeds (default 1-8)
//   TRACES=dir     the shared traces (default ../shared/traces beside the repository)
// The commands run from the repository root, so the fleet paths are the repository's.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/slo_targets.hpp"

namespace fs = std::filesystem;
using capstan::sim::MedianWorst;
using capstan::sim::SloTargetsVerdict;

namespace {

struct Source {
  std::string name;
  std::string what;
  std::string trace;              // under TRACES
  std::vector<std::string> args;  // fleet, SLO and replay options
};

const std::string kMix16 = "sim/scenarios/fleets/llama70b-mix16.yaml";

std::vector<Source> sources() {
  return {
      {"azure-code", "Azure 2023 code, 57 min", "azure2023/AzureLLMInferenceTrace_code.csv", {"--fleet", kMix16}},
      // The premise (a static fleet within the maxima meets 0.99) fails on mix16 for
      // the code trace; the same trace on room for 32 H100 (24 meet it) judges hybrid by it.
      {"azure-code-32", "Azure 2023 code, 57 min, maxima 32", "azure2023/AzureLLMInferenceTrace_code.csv",
       {"--fleet", "sim/scenarios/fleets/llama70b-mix32.yaml"}},
      {"azure-conv", "Azure 2023 conversation, 58 min", "azure2023/AzureLLMInferenceTrace_conv.csv",
       {"--fleet", kMix16}},
      {"servegen-m-mid", "ServeGen m-mid, day 2 h 0-4, x0.004", "servegen/language/m-mid",
       {"--fleet", kMix16, "--window", "86400:100800", "--rate-scale", "0.004"}},
      {"servegen-m-small", "ServeGen m-small, day 2 h 7.3-11.3, x0.006", "servegen/language/m-small",
       {"--fleet", kMix16, "--window", "112800:127200", "--rate-scale", "0.006"}},
      {"deepseek-r1-day", "ServeGen DeepSeek-R1, the whole day, x0.5", "servegen/reason/deepseek-r1",
       {"--fleet", kMix16, "--rate-scale", "0.5"}},
      {"mooncake", "Mooncake synthetic, 17 min, long context", "mooncake/synthetic_trace.jsonl",
       {"--fleet", "sim/scenarios/fleets/llama70b-longctx.yaml", "--slo-ttft-ms", "30000", "--slo-itl-ms", "150"}},
  };
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The arguments after `capstan`, shared by the command shown and the one run.
std::vector<std::string> simulate_args(const Source& s, const std::string& traces, const std::string& seeds) {
  std::vector<std::string> a{"simulate", "--trace", traces + "/" + s.trace};
  a.insert(a.end(), s.args.begin(), s.args.end());
  for (const char* x : {"--policy", "all", "--slo-attainment", "0.99", "--seeds"}) a.push_back(x);
  a.push_back(seeds);
  return a;
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += " " + a;
  return out;
}

std::string num(double x, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

std::string mw(const MedianWorst& x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f (%.*f)", decimals, x.median, decimals, x.worst);
  return buf;
}

std::string seed_list(const std::vector<std::uint64_t>& seeds) {
  std::string out;
  for (auto s : seeds) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out.empty() ? "none" : out;
}

const char* pass(bool met) { return met ? "PASS" : "FAIL"; }

void print_verdict(const Source& s, const SloTargetsVerdict& v, const std::string& command) {
  std::printf("\n-- %s (%s): median (worst) over seeds %s of `%s`\n", s.name.c_str(), s.what.c_str(),
              seed_list(v.seeds).c_str(), command.c_str());
  std::printf("hybrid: attainment %s, GPU-hours %s%s\n", mw(v.attainment, 4).c_str(), mw(v.gpu_hours, 2).c_str(),
              v.errors ? ("  (threw at " + std::to_string(v.errors) + " seeds)").c_str() : "");
  std::printf("best static fleet: GPU-hours %s, %s\n", mw(v.static_gpu_hours, 2).c_str(),
              v.static_misses.empty() ? "meets 0.99 at every seed"
                                      : ("misses 0.99 at seeds " + seed_list(v.static_misses)).c_str());
  if (v.static_from_start_attainment)
    std::printf("the same fleet asked for at t = 0 beside the fleet's initial replicas: attainment %s\n",
                mw(*v.static_from_start_attainment, 4).c_str());
  if (v.vs_static) std::printf("hybrid / static GPU-hours per seed: %s\n", mw(*v.vs_static, 2).c_str());
  std::printf("peers at equal or better attainment (ratio = hybrid's GPU-hours / the peer's):\n");
  bool any = false;
  for (const auto& p : v.peers) {
    if (!p.counts_at_median && p.seeds_counted.empty()) continue;
    any = true;
    std::printf("  %-17s attainment %s  GPU-hours %s  at the median: %s  at seeds %s: %s\n", p.policy.c_str(),
                mw(p.attainment, 4).c_str(), mw(p.gpu_hours, 2).c_str(),
                p.counts_at_median ? ("ratio " + num(p.median_ratio, 2)).c_str() : "below hybrid",
                seed_list(p.seeds_counted).c_str(),
                p.worst_ratio ? ("worst ratio " + num(*p.worst_ratio, 2)).c_str() : "-");
  }
  if (!any) std::printf("  none\n");
  std::printf("%-47s %-6s %s\n", "target", "median", "worst");
  std::printf("%-47s %-6s %s\n", "attainment >= 0.99", pass(v.reaches_attainment.median_met),
              pass(v.reaches_attainment.worst_met));
  std::printf("%-47s %-6s %s\n", "GPU-hours <= the best static fleet's (meets)", pass(v.within_static.median_met),
              pass(v.within_static.worst_met));
  std::printf("%-47s %-6s %s\n", "GPU-hours <= 0.75x every peer at >= attainment", pass(v.below_peers.median_met),
              pass(v.below_peers.worst_met));
}

struct Outcome {
  const Source* source;
  std::string command;
  std::optional<SloTargetsVerdict> verdict;
  std::string problem;
  double wall_s = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const fs::path repo = CAPSTAN_SOURCE_DIR;
  const fs::path here = fs::absolute(fs::path(argv[0])).parent_path();
  const std::string capstan = env_or("CAPSTAN", (here.parent_path() / "capstan").string());
  const std::string seeds = env_or("SEEDS", "1-8");
  const std::string traces = env_or("TRACES", "../shared/traces");
  std::vector<std::string> only(argv + 1, argv + argc);
  if (std::error_code ec; fs::current_path(repo, ec), ec) {
    std::printf("slo_targets_bench: cannot enter the repository at %s\n", repo.c_str());
    return 1;
  }
  if (!fs::exists(capstan)) {
    std::printf("slo_targets_bench: no capstan binary at %s (set CAPSTAN)\n", capstan.c_str());
    return 1;
  }
  std::printf("slo_targets_bench: capstan %s, seeds %s, traces %s (commands run from %s)\n", capstan.c_str(),
              seeds.c_str(), traces.c_str(), repo.c_str());

  const auto all_start = std::chrono::steady_clock::now();
  std::vector<Outcome> outcomes;
  int status = 0;
  for (const Source& s : sources()) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
    const auto args = simulate_args(s, traces, seeds);
    Outcome o{&s, "capstan" + joined(args), std::nullopt, "", 0};
    std::printf("\n== %s: %s\n", s.name.c_str(), s.what.c_str());
    std::fflush(stdout);
    if (!fs::exists(traces + "/" + s.trace)) {
      o.problem = "skipped: no trace at " + traces + "/" + s.trace;
      std::printf("%s\n", o.problem.c_str());
      outcomes.push_back(o);
      continue;
    }
    const fs::path json_path =
        fs::temp_directory_path() / ("slo_targets_" + std::to_string(getpid()) + "_" + s.name + ".json");
    std::string run = shell_quoted(capstan);
    for (const auto& a : args) run += " " + shell_quoted(a);
    run += " --json " + shell_quoted(json_path.string());
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = std::system(run.c_str());
    o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ifstream in(json_path);
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object() && !doc.contains("per_seed")) {  // one seed: simulate writes that seed's summary alone
      doc = {{"seeds", {std::strtoull(seeds.c_str(), nullptr, 10)}}, {"per_seed", {doc}}};
    }
    fs::remove(json_path);
    if (rc != 0 || doc.is_discarded()) {
      o.problem = "capstan simulate failed (status " + std::to_string(rc) + ")";
      status = 1;
    } else if (auto v = capstan::sim::judge_slo_targets(doc, {}); !v.ok()) {
      o.problem = v.error().message;
      status = 1;
    } else {
      o.verdict = v.value();
      print_verdict(s, *o.verdict, o.command);
    }
    if (!o.problem.empty()) std::printf("%s\n", o.problem.c_str());
    std::printf("(%.0f s wall)\n", o.wall_s);
    outcomes.push_back(o);
  }

  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - all_start).count();
  std::printf("\n== summary: hybrid at SLO attainment 0.99, median (worst) over seeds %s; PASS/FAIL as median/worst\n",
              seeds.c_str());
  std::printf("%-17s %-17s %-15s %-16s %-9s %-9s %-9s %s\n", "source", "attainment", "GPU-hours", "static GPU-h",
              ">=0.99", "<=static", "<=0.75x", "command");
  for (const Outcome& o : outcomes) {
    if (!o.verdict) {
      std::printf("%-17s %s  %s\n", o.source->name.c_str(), o.problem.c_str(), o.command.c_str());
      continue;
    }
    const auto& v = *o.verdict;
    const auto both = [](const capstan::sim::TargetCheck& t) {
      return std::string(pass(t.median_met)) + "/" + pass(t.worst_met);
    };
    std::printf("%-17s %-17s %-15s %-16s %-9s %-9s %-9s %s\n", o.source->name.c_str(), mw(v.attainment, 3).c_str(),
                mw(v.gpu_hours, 2).c_str(),
                (mw(v.static_gpu_hours, 2) + (v.static_misses.empty() ? "" : "*")).c_str(),
                both(v.reaches_attainment).c_str(), both(v.within_static).c_str(), both(v.below_peers).c_str(),
                o.command.c_str());
  }
  if (std::any_of(outcomes.begin(), outcomes.end(),
                  [](const Outcome& o) { return o.verdict && !o.verdict->static_misses.empty(); }))
    std::printf("* no static fleet within the maxima meets 0.99 at some seed: no yardstick, the target is not met\n");
  std::printf("total %.0f s wall\n", total_s);
  return status;
}
