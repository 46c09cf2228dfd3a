// One `hybrid` tick of a large fleet (issue 19 target: at most 300 ms for 10,000
// variants on 2 cores), as 1,000 models of 10 variants and as 10,000 models of one. Each
// variant is a copy of one the simulator recorded (recorded_fleet.hpp), tick by tick, so
// its pods report per-request ITL histograms; the first 20 ticks fill hybrid's ITL
// evidence untimed, then run_tick is timed alone (building the input is not).
// Run: build/bench/fleet_bench [TRACE] [TIMED_TICKS]
//   (default: ops/examples/azure_code_15min.csv, 5 timed ticks)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "domain/tick/tick_driver.hpp"
#include "recorded_fleet.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

constexpr std::size_t kWarmUpTicks = 20;

void time_fleet(const std::vector<TickInput>& recorded, int models, int variants_per_model, std::size_t timed) {
  PolicyConfig config;
  config.slo = {2000, 100};
  FleetMemory memory;
  std::vector<double> ms;
  const std::size_t ticks = std::min(recorded.size(), kWarmUpTicks + timed);
  for (std::size_t t = 0; t < ticks; ++t) {
    const TickInput input = bench::widened(recorded[t], models, variants_per_model);
    const auto t0 = std::chrono::steady_clock::now();
    TickResult result = run_tick(std::move(memory), *hybrid_policy(), input, config);
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    memory = std::move(result.next);
    bench::keep(result.decisions);
    if (t >= kWarmUpTicks) ms.push_back(elapsed_ms);
  }
  if (ms.empty()) {
    std::printf("%5d x %-3d  too few recorded ticks\n", models, variants_per_model);
    return;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%6d models x %2d variants  %8.1f ms median  %8.1f ms worst of %zu ticks  (target <= 300 ms)\n",
              models, variants_per_model, ms[ms.size() / 2], ms.back(), ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<TickInput> recorded = bench::simulated_ticks(argc > 1 ? argv[1] : "");
  if (recorded.empty()) return 1;
  const std::size_t timed = argc > 2 ? std::stoul(argv[2]) : 5;
  std::printf("hybrid, one tick of 10,000 variants (%zu recorded ticks, first %zu untimed)\n", recorded.size(),
              kWarmUpTicks);
  time_fleet(recorded, 1000, 10, timed);
  time_fleet(recorded, 10000, 1, timed);
  return 0;
}
