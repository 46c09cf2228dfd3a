// Speed of the decision core: QueueAnalyzer::size() and one EKF tuner step.
// Targets (issue 2): size() under 20 us at max batch 256 / max queue 100; an EKF step
// under 50 us. Run: build/bench/core_bench
#include <cstdio>
#include <vector>

#include "domain/model/ekf_tuner.hpp"
#include "domain/model/queue_model.hpp"
#include "timer.hpp"

using namespace capstan;

int main() {
  struct Case {
    const char* name;
    ServiceParams params;
    RequestSize size;
    SloTargets slo;
  };
  const std::vector<Case> cases{
      {"alpha 5, 512/128, SLO 500/50", {5.0, 0.05, 5e-5}, {512, 128}, {500, 50}},
      {"alpha 8, 1024/256, SLO 500/50", {8.0, 0.016, 5e-4}, {1024, 256}, {500, 50}},
      {"alpha 30, 512/16, SLO 3000/100", {30.0, 0.005, 1e-4}, {512, 16}, {3000, 100}},
  };
  std::printf("%-34s %14s %12s\n", "size() at batch 256, queue 100", "median us/call", "chain solves");
  for (const Case& c : cases) {
    auto qa = QueueAnalyzer::create(c.params, {256, 100}, c.size);
    if (!qa) return 1;
    const int solves = qa->size(c.slo)->evaluations;
    const double ns = bench::median_ns_per_call([&](int) { bench::keep(qa->size(c.slo)); }, 200);
    std::printf("%-34s %14.2f %12d\n", c.name, ns / 1000, solves);
  }
  {
    const double ns = bench::median_ns_per_call(
        [&](int) {
          auto qa = QueueAnalyzer::create(cases[0].params, {256, 100}, cases[0].size);
          bench::keep(qa->size(cases[0].slo));
        },
        200);
    std::printf("%-34s %14.2f\n", "create() + size(), first case", ns / 1000);
  }

  // One EKF step: predict, the queue model at the observation (Q = 10 N) and three
  // Jacobian columns, update, NIS gate.
  const TunerConfig config;
  const TunerObservation obs{120, 12, 1000, 200, 8, 256};
  const TunerState state = initial_state(obs, config).state;
  const double ns = bench::median_ns_per_call([&](int) { bench::keep(tune_step(state, obs, config)); }, 100);
  std::printf("%-34s %14.2f\n", "EKF tune_step (batch 256, Q 2560)", ns / 1000);
  return 0;
}
