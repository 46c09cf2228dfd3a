// Speed of the simulator under load and of trace windows (issue 20, item 7):
// 1. simulated requests per CPU-second of every registered policy (as `simulate
//    --policy all` runs them) over the Azure conversation trace at --rate-scale 1 and
//    16, the fleet's maxima raised 16x for the latter. Target: 16x within 1.5x of 1x,
//    i.e. a simulated request costs about the same at any load.
// 2. CPU seconds to read a one-hour --window at day 7 and at day 0 of a ServeGen
//    folder. Target: day 7 within 2x of day 0 (the reader seeks to the window).
// Prints figures; asserts nothing (the machine is shared and noisy).
// Run: build/bench/trace_speed_bench [AZURE_CONV_CSV] [SERVEGEN_DIR] [FLEET]
//   (defaults: /work/shared/traces/azure2023/AzureLLMInferenceTrace_conv.csv,
//   /work/shared/traces/servegen/language/m-small and ops/examples/fleet.yaml)

#include <cstdio>
#include <filesystem>
#include <string>

#include "domain/policies/policy.hpp"
#include "sim/fleet_config.hpp"
#include "sim/harness.hpp"
#include "sim/trace_open.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

// Requests per CPU-second of every registered policy at this rate scale; -1 on error.
double policies_rate(const std::string& trace_path, sim::FleetConfig fleet, double rate_scale) {
  for (auto& v : fleet.variants) v.max_replicas = static_cast<int>(v.max_replicas * std::max(1.0, rate_scale));
  sim::TraceOptions topts;
  topts.rate_scale = rate_scale;
  sim::HarnessOptions hopts;
  hopts.slo = {2000, 100};
  PolicyConfig pconfig;
  pconfig.slo = hopts.slo;
  long long requests = 0;
  double cpu_s = 0;
  for (const PolicyInfo& info : registered_policies()) {
    DrivenPolicy policy(info.make(), pconfig);
    auto trace = sim::open_trace(trace_path, topts);
    if (!trace.ok()) {
      std::printf("error: %s\n", trace.error().message.c_str());
      return -1;
    }
    const double t0 = bench::cpu_seconds();
    auto run = sim::run_policy(policy, fleet, std::move(trace).value(), hopts);
    const double spent = bench::cpu_seconds() - t0;
    if (!run.ok()) {
      std::printf("%-12s error: %s\n", info.name.c_str(), run.error().message.c_str());
      continue;
    }
    cpu_s += spent;
    requests += run.value().report.requests;
    std::printf("  %-12s x%-3g %9lld requests %8.2f CPU-s %10.0f requests/CPU-s\n", info.name.c_str(), rate_scale,
                run.value().report.requests, spent, spent > 0 ? run.value().report.requests / spent : 0.0);
  }
  return cpu_s > 0 ? static_cast<double>(requests) / cpu_s : 0;
}

// CPU seconds to read every request of the window [from_s, from_s + 3600); -1 on error.
double window_cpu_s(const std::string& folder, double from_s, long long& requests) {
  sim::TraceOptions topts;
  topts.window_from_s = from_s;
  topts.window_to_s = from_s + 3600;
  const double t0 = bench::cpu_seconds();
  auto trace = sim::open_trace(folder, topts);
  if (!trace.ok()) {
    std::printf("error: %s\n", trace.error().message.c_str());
    return -1;
  }
  requests = 0;
  for (;;) {
    auto r = trace.value()->next();
    if (!r.ok()) {
      std::printf("error: %s\n", r.error().message.c_str());
      return -1;
    }
    if (!r.value()) break;
    ++requests;
  }
  return bench::cpu_seconds() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string conv = argc > 1 ? argv[1] : "/work/shared/traces/azure2023/AzureLLMInferenceTrace_conv.csv";
  const std::string servegen = argc > 2 ? argv[2] : "/work/shared/traces/servegen/language/m-small";
  const std::string fleet_path =
      argc > 3 ? argv[3]
               : (std::filesystem::path(__FILE__).parent_path().parent_path() / "ops/examples/fleet.yaml").string();
  auto fleet = sim::load_fleet_config(fleet_path);
  if (!fleet.ok()) {
    std::printf("trace_speed_bench: %s\n", fleet.error().message.c_str());
    return 1;
  }
  if (std::filesystem::exists(conv)) {
    std::printf("simulate --policy all over %s (fleet %s)\n", conv.c_str(), fleet_path.c_str());
    const double at1 = policies_rate(conv, fleet.value(), 1);
    const double at16 = policies_rate(conv, fleet.value(), 16);
    std::printf("requests per CPU-second: %.0f at --rate-scale 1, %.0f at 16: 1x/16x = %.2f (target <= 1.5)\n\n",
                at1, at16, at16 > 0 ? at1 / at16 : 0.0);
  } else {
    std::printf("skipped the policies: no trace at %s\n\n", conv.c_str());
  }
  if (std::filesystem::exists(servegen)) {
    long long n0 = 0, n7 = 0;
    const double day0 = window_cpu_s(servegen, 0, n0);
    const double day7 = window_cpu_s(servegen, 7 * 86400, n7);
    std::printf("--window of one hour over %s: day 0 %.2f CPU-s (%lld requests), day 7 %.2f CPU-s "
                "(%lld requests): day 7 / day 0 = %.2f (target <= 2)\n",
                servegen.c_str(), day0, n0, day7, n7, day0 > 0 ? day7 / day0 : 0.0);
  } else {
    std::printf("skipped the windows: no ServeGen folder at %s\n", servegen.c_str());
  }
  return 0;
}
