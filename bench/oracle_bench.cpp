// The fleet-level oracle's cost (issue 20, "Performance"): CPU seconds of
// compute_fleet_oracle (sim/fleet_oracle.hpp) as `simulate` runs it (300 s windows, the
// default SLO and attainment, seed 1) on the full Azure code and conversation traces and
// on one day of ServeGen traffic. Target: under 10 s each on 2 cores. Also prints what
// the time went into: windows, fleet simulations (probes) and the plan's GPU-hours, so
// a change that makes it faster can be seen not to change its results.
// Prints figures; asserts nothing (the machine is shared and noisy).
// Run: build/bench/oracle_bench [FLEET] [TRACE ...]
//   (defaults: ops/examples/fleet.yaml; the two Azure 2023 traces and the busiest client
//   of the one-day ServeGen deepseek-r1 folder, all under /work/shared/traces/)

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/fleet_config.hpp"
#include "sim/fleet_oracle.hpp"
#include "sim/policy_settings.hpp"
#include "sim/trace_open.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

void measure(const sim::FleetConfig& fleet, const std::string& path) {
  if (!std::filesystem::exists(path)) {
    std::printf("%-60s skipped: not found\n", path.c_str());
    return;
  }
  const sim::PolicySettings settings;
  auto trace = sim::open_trace(path, {});
  if (!trace.ok()) {
    std::printf("%-60s error: %s\n", path.c_str(), trace.error().message.c_str());
    return;
  }
  sim::FleetOracleOptions options;
  options.attainment_target = settings.slo_attainment;
  const double cpu0 = bench::cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  auto oracle = sim::compute_fleet_oracle(fleet, *trace.value(), settings.slo, options);
  const double cpu_s = bench::cpu_seconds() - cpu0;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!oracle.ok()) {
    std::printf("%-60s error: %s\n", path.c_str(), oracle.error().message.c_str());
    return;
  }
  const sim::FleetOracle& o = oracle.value();
  std::printf("%-60s %9lld %8zu %8lld %10.3f %8.2f %8.2f\n", std::filesystem::path(path).filename().c_str(),
              o.requests, o.windows.size(), o.probes, o.gpu_hours, cpu_s, wall_s);
}

// The ServeGen client file of a folder with the most bytes: the busiest client.
std::string busiest_client(const std::string& folder) {
  std::string best;
  std::uintmax_t best_size = 0;
  if (!std::filesystem::is_directory(folder)) return folder;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("chunk-", 0) != 0 || entry.file_size() <= best_size) continue;
    best_size = entry.file_size();
    best = entry.path().string();
  }
  return best.empty() ? folder : best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string fleet_path =
      argc > 1 ? argv[1]
               : (std::filesystem::path(__FILE__).parent_path().parent_path() / "ops/examples/fleet.yaml").string();
  std::vector<std::string> traces(argv + std::min(argc, 2), argv + argc);
  if (traces.empty()) {
    const std::string root = "/work/shared/traces/";
    traces = {root + "azure2023/AzureLLMInferenceTrace_code.csv", root + "azure2023/AzureLLMInferenceTrace_conv.csv",
              busiest_client(root + "servegen/reason/deepseek-r1"), root + "servegen/reason/deepseek-r1"};
  }
  auto fleet = sim::load_fleet_config(fleet_path);
  if (!fleet.ok()) {
    std::printf("oracle_bench: %s\n", fleet.error().message.c_str());
    return 1;
  }
  std::printf("fleet oracle over %s, 300 s windows, seed 1\n", fleet_path.c_str());
  std::printf("%-60s %9s %8s %8s %10s %8s %8s\n", "trace", "requests", "windows", "probes", "GPU-h", "CPU-s",
              "wall-s");
  for (const std::string& path : traces) measure(fleet.value(), path);
  std::printf("target: < 10 CPU-s per trace\n");
  return 0;
}
