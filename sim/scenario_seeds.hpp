// The scenario suite over several seeds: a scenario passes for a policy only if it
// passes at every seed; each check's figure is reported as its median and its worst
// over the seeds (worst: the highest for an upper bound, the lowest for a lower bound,
// not measurable (NaN) worst of all), with the seeds at which it failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario_runner.hpp"

namespace capstan::sim {

struct SeededCheck {
  std::string name;
  Bound bound = Bound::kAtMost;
  double limit = 0;
  double median = 0, worst = 0;  // NaN when not measurable at that rank
  std::vector<std::uint64_t> failed_seeds;
};

struct SeededResult {
  std::string scenario, policy;
  std::vector<std::uint64_t> seeds;
  std::vector<std::uint64_t> failed_seeds;  // empty: passed at every seed
  std::vector<SeededCheck> checks;
  double gpu_hours_median = 0, gpu_hours_worst = 0;
  double vs_static_median = 0, vs_static_worst = 0;  // NaN without a static fleet
  std::vector<std::string> errors;  // the policy's errors, "seed N: ..."
  bool passed() const { return failed_seeds.empty(); }
};

// `results` holds one ScenarioResult per (scenario, policy, seed), in any order; the
// output has one entry per (scenario, policy) in first-seen order.
std::vector<SeededResult> aggregate_seeds(const std::vector<ScenarioResult>& results);

// {"seeds": [...], "scenarios": [{"scenario", "policy", "passed", "failed_seeds",
//   "gpu_hours": {"median", "worst"}, "vs_static": {...},
//   "checks": [{"name", "limit", "median", "worst", "passed", "failed_seeds"}]}]}
nlohmann::json seeded_results_json(const std::vector<std::uint64_t>& seeds, const std::vector<SeededResult>& results);

}  // namespace capstan::sim
