// Scenario results over seeds; see scenario_seeds.hpp.
#include "sim/scenario_seeds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace capstan::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Sorted from best to worst; NaN (not measurable) last.
std::vector<double> best_to_worst(std::vector<double> v, bool higher_is_worse) {
  std::sort(v.begin(), v.end(), [&](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
    return higher_is_worse ? a < b : a > b;
  });
  return v;
}

double median_of(const std::vector<double>& sorted) { return sorted.empty() ? kNaN : sorted[(sorted.size() - 1) / 2]; }
double worst_of(const std::vector<double>& sorted) { return sorted.empty() ? kNaN : sorted.back(); }

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

std::vector<SeededResult> aggregate_seeds(const std::vector<ScenarioResult>& results) {
  std::vector<SeededResult> out;
  std::vector<std::vector<const ScenarioResult*>> groups;
  for (const ScenarioResult& r : results) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const SeededResult& s) { return s.scenario == r.scenario && s.policy == r.policy; });
    if (it == out.end()) {
      out.push_back({r.scenario, r.policy, {}, {}, {}, 0, 0, 0, 0, {}});
      groups.emplace_back();
      it = out.end() - 1;
    }
    groups[static_cast<std::size_t>(it - out.begin())].push_back(&r);
  }
  for (std::size_t g = 0; g < out.size(); ++g) {
    SeededResult& s = out[g];
    std::vector<double> gpu, vs_static;
    for (const ScenarioResult* r : groups[g]) {
      s.seeds.push_back(r->seed);
      if (!r->passed) s.failed_seeds.push_back(r->seed);
      if (!r->error.empty()) s.errors.push_back("seed " + std::to_string(r->seed) + ": " + r->error);
      gpu.push_back(r->gpu_hours);
      vs_static.push_back(r->static_gpu_hours && *r->static_gpu_hours > 0 ? r->gpu_hours / *r->static_gpu_hours
                                                                           : kNaN);
    }
    gpu = best_to_worst(gpu, true);
    vs_static = best_to_worst(vs_static, true);
    s.gpu_hours_median = median_of(gpu);
    s.gpu_hours_worst = worst_of(gpu);
    s.vs_static_median = median_of(vs_static);
    s.vs_static_worst = worst_of(vs_static);
    const auto& first = groups[g].front()->checks;
    for (std::size_t c = 0; c < first.size(); ++c) {
      SeededCheck check{first[c].name, first[c].bound, first[c].limit, 0, 0, {}};
      std::vector<double> values;
      for (const ScenarioResult* r : groups[g]) {
        if (c >= r->checks.size()) continue;
        values.push_back(r->checks[c].value);
        if (!r->checks[c].passed) check.failed_seeds.push_back(r->seed);
      }
      values = best_to_worst(values, check.bound == Bound::kAtMost);
      check.median = median_of(values);
      check.worst = worst_of(values);
      s.checks.push_back(check);
    }
  }
  return out;
}

nlohmann::json seeded_results_json(const std::vector<std::uint64_t>& seeds, const std::vector<SeededResult>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const SeededResult& r : results) {
    nlohmann::json checks = nlohmann::json::array();
    for (const SeededCheck& c : r.checks)
      checks.push_back({{"name", c.name},
                        {"limit", c.limit},
                        {"median", number_or_null(c.median)},
                        {"worst", number_or_null(c.worst)},
                        {"passed", c.failed_seeds.empty()},
                        {"failed_seeds", c.failed_seeds}});
    out.push_back({{"scenario", r.scenario},
                   {"policy", r.policy},
                   {"passed", r.passed()},
                   {"failed_seeds", r.failed_seeds},
                   {"gpu_hours", {{"median", number_or_null(r.gpu_hours_median)}, {"worst", number_or_null(r.gpu_hours_worst)}}},
                   {"vs_static", {{"median", number_or_null(r.vs_static_median)}, {"worst", number_or_null(r.vs_static_worst)}}},
                   {"errors", r.errors},
                   {"checks", checks}});
  }
  return {{"seeds", seeds}, {"scenarios", out}};
}

}  // namespace capstan::sim
