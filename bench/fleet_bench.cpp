// One `hybrid` tick of a large fleet (issue 19 target: at most 300 ms for 10,000
// variants on 2 cores), as 1,000 models of 10 variants and as 10,000 models of one, and
// 1,000 models of 3 (the example fleet's shape, 3,000 variants) beside them. Each
// variant is a copy of one the simulator recorded (recorded_fleet.hpp), tick by tick, so
// its pods report per-request ITL histograms; the first 20 ticks fill hybrid's ITL
// evidence untimed, then run_tick is timed alone (building the input is not): wall time,
// and the process's CPU time, which a machine shared with other builds inflates less.
// Each shape runs with its models in order on one thread, then on two
// (replay/parallel_for.hpp: a tick's models are independent until allocate).
// Run: build/bench/fleet_bench [TRACE] [TIMED_TICKS] [MODELSxVARIANTS]
//   (default: ops/examples/azure_code_15min.csv, 5 timed ticks, the three shapes)
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "domain/tick/tick_driver.hpp"
#include "replay/parallel_for.hpp"
#include "recorded_fleet.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

constexpr std::size_t kWarmUpTicks = 20;

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void time_fleet(const std::vector<TickInput>& recorded, int models, int variants_per_model, std::size_t timed,
                unsigned threads) {
  PolicyConfig config;
  config.slo = {2000, 100};
  FleetMemory memory;
  std::vector<double> ms, cpu_ms;
  const std::size_t ticks = std::min(recorded.size(), kWarmUpTicks + timed);
  for (std::size_t t = 0; t < ticks; ++t) {
    const TickInput input = bench::widened(recorded[t], models, variants_per_model);
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = process_cpu_ms();
    TickResult result = run_tick(std::move(memory), *hybrid_policy(), input, TickConfigs{config, {}},
                                 threads > 1 ? parallel_for_each(threads) : ForEachModel{});
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double elapsed_cpu_ms = process_cpu_ms() - c0;
    memory = std::move(result.next);
    bench::keep(result.decisions);
    if (t >= kWarmUpTicks) {
      ms.push_back(elapsed_ms);
      cpu_ms.push_back(elapsed_cpu_ms);
    }
  }
  if (ms.empty()) {
    std::printf("%5d x %-3d  too few recorded ticks\n", models, variants_per_model);
    return;
  }
  std::printf("%6d models x %2d variants, %u thread%s  %8.1f ms median  %8.1f ms worst of %zu ticks  (CPU %8.1f ms median)\n",
              models, variants_per_model, threads, threads > 1 ? "s" : " ", median(ms), *std::max_element(ms.begin(), ms.end()), ms.size(),
              median(cpu_ms));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<TickInput> recorded = bench::simulated_ticks(argc > 1 ? argv[1] : "");
  if (recorded.empty()) return 1;
  const std::size_t timed = argc > 2 ? std::stoul(argv[2]) : 5;
  const std::string only = argc > 3 ? argv[3] : "";
  std::printf("hybrid, one tick of a large fleet (target <= 300 ms at 10,000 variants; %zu recorded ticks, first %zu untimed)\n",
              recorded.size(), kWarmUpTicks);
  for (auto [models, variants] : {std::pair{1000, 10}, std::pair{10000, 1}, std::pair{1000, 3}}) {
    if (only.empty() || only == std::to_string(models) + "x" + std::to_string(variants)) {
      for (unsigned threads : {1u, 2u}) time_fleet(recorded, models, variants, timed, threads);
    }
  }
  return 0;
}
