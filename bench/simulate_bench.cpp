// Speed of the policy harness: every registered policy over the full Azure code trace
// (8,819 requests, 57 min) on the example fleet, plus the oracle, as `capstan
// simulate --policy all` runs them. Target (issue 3): 7 policies in under 60 s on 2
// cores. Prints simulated requests per wall-second and peak RSS; asserts nothing.
// Run: build/bench/simulate_bench [TRACE] [FLEET]
//   (defaults: /work/shared/traces/azure2023/AzureLLMInferenceTrace_code.csv and the
//   repository's ops/examples/fleet.yaml)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "domain/policies/policy.hpp"
#include "sim/harness.hpp"
#include "sim/oracle.hpp"
#include "sim/trace_demand.hpp"
#include "sim/trace_open.hpp"

using namespace capstan;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int fail(const std::string& message) {
  std::printf("simulate_bench: %s\n", message.c_str());
  return 1;
}

long peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  const std::string trace_path =
      argc > 1 ? argv[1] : "/work/shared/traces/azure2023/AzureLLMInferenceTrace_code.csv";
  const std::string fleet_path =
      argc > 2 ? argv[2]
               : (std::filesystem::path(__FILE__).parent_path().parent_path() / "ops/examples/fleet.yaml").string();
  if (!std::filesystem::exists(trace_path)) {
    std::printf("simulate_bench: skipped, no trace at %s (pass its path as the first argument)\n",
                trace_path.c_str());
    return 0;
  }
  auto fleet = sim::load_fleet_config(fleet_path);
  if (!fleet.ok()) return fail(fleet.error().message);
  const SloTargets slo{2000, 100};
  const sim::TraceOptions topts;
  std::printf("trace %s\nfleet %s, SLO TTFT 2000 ms / ITL 100 ms, tick 30 s\n\n", trace_path.c_str(),
              fleet_path.c_str());

  const auto all_start = std::chrono::steady_clock::now();
  auto demand_trace = sim::open_trace(trace_path, topts);
  if (!demand_trace.ok()) return fail(demand_trace.error().message);
  auto demand = sim::measure_trace_demand(*demand_trace.value());
  if (!demand.ok()) return fail(demand.error().message);
  const sim::Oracle oracle = sim::compute_oracle(fleet.value(), demand.value(), slo);
  std::printf("%-12s %10s %10s %14s %10s\n", "run", "requests", "wall s", "requests/s", "GPU-h");
  std::printf("%-12s %10lld %10.2f %14s %10.2f\n", "oracle", demand.value().requests, seconds_since(all_start),
              "-", oracle.gpu_hours);

  long long total_requests = 0;
  double policies_s = 0;
  sim::HarnessOptions hopts;
  hopts.slo = slo;
  PolicyConfig pconfig;
  pconfig.slo = slo;
  for (const PolicyInfo& info : registered_policies()) {
    DrivenPolicy policy(info.make(), pconfig);
    auto trace = sim::open_trace(trace_path, topts);
    if (!trace.ok()) return fail(trace.error().message);
    const auto t0 = std::chrono::steady_clock::now();
    auto run = sim::run_policy(policy, fleet.value(), std::move(trace).value(), hopts);
    const double wall_s = seconds_since(t0);
    policies_s += wall_s;
    if (!run.ok()) {
      std::printf("%-12s error: %s\n", info.name.c_str(), run.error().message.c_str());
      continue;
    }
    const auto& r = run.value().report;
    total_requests += r.requests;
    std::printf("%-12s %10lld %10.2f %14.0f %10.2f%s%s\n", info.name.c_str(), r.requests, wall_s,
                wall_s > 0 ? static_cast<double>(r.requests) / wall_s : 0.0, r.gpu_hours,
                run.value().error.empty() ? "" : "  error: ", run.value().error.c_str());
  }
  const double total_s = seconds_since(all_start);
  std::printf("\n%zu policies: %lld simulated requests in %.2f s of policy runs (%.0f requests/s); "
              "%.2f s with the oracle (target < 60 s for 7 policies on 2 cores)\n",
              registered_policies().size(), total_requests, policies_s,
              policies_s > 0 ? static_cast<double>(total_requests) / policies_s : 0.0, total_s);
  std::printf("peak RSS %ld MiB\n", peak_rss_mib());
  return 0;
}
