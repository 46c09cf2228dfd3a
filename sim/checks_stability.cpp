// Scenario checks for oscillation and idle GPUs (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace capstan::sim::checks {
namespace {

// Most scale actions in any window of window_s starting at or after after_s.
double scale_actions_per_window(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = param(spec, "after_s", 0), window_s = param(spec, "window_s", 3600);
  std::vector<double> times;
  for (const ScaleAction& a : c.run.report.scale_actions)
    if (a.time_s >= after_s) times.push_back(a.time_s);
  std::sort(times.begin(), times.end());
  double most = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto end = std::lower_bound(times.begin(), times.end(), times[i] + window_s);
    most = std::max(most, static_cast<double>(end - (times.begin() + static_cast<long>(i))));
  }
  return most;
}

// Reversals back: up-down-up or down-up-down of one variant within within_ticks ticks.
double oscillations(const CheckSpec& spec, const CheckContext& c) {
  const double span_s = param(spec, "within_ticks", 3) * c.scenario.tick_s + 1e-9;
  const double after_s = param(spec, "after_s", 0);
  std::map<std::string, std::vector<std::pair<double, int>>> moves;  // variant -> (time, +1/-1)
  for (const ScaleAction& a : c.run.report.scale_actions)
    if (a.time_s >= after_s && a.to != a.from) moves[a.variant].emplace_back(a.time_s, a.to > a.from ? 1 : -1);
  double count = 0;
  for (const auto& [variant, m] : moves)
    for (std::size_t i = 0; i + 2 < m.size(); ++i)
      if (m[i].second == m[i + 2].second && m[i].second != m[i + 1].second && m[i + 2].first - m[i].first <= span_s)
        ++count;
  return count;
}

// Seconds after after_s until the fleet is at the floor for the rest of the run.
double time_to_floor_s(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = spec.params.at("after_s");
  int floor = 0;  // per model: its minimums, and one replica when it may not scale to zero
  for (const FleetConfig& f : c.fleets) {
    int model_floor = 0;
    for (const VariantConfig& v : f.variants) model_floor += v.min_replicas;
    floor += c.scenario.scale_to_zero_retention_s <= 0 ? std::max(model_floor, 1) : model_floor;
  }
  floor = static_cast<int>(param(spec, "floor", floor));
  double reached = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < after_s) continue;
    if (total(t.replicas) > floor) reached = kNaN;
    else if (std::isnan(reached)) reached = t.time_s - after_s;
  }
  return reached;
}

double idle_gpu_hours(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = spec.params.at("after_s");
  const auto variants = run_variants(c);
  double gpu_s = 0;
  for (const TickRecord& t : c.run.series)
    if (t.time_s > after_s) gpu_s += gpus_held(t, variants) * c.scenario.tick_s;
  return gpu_s / 3600.0;
}

}  // namespace

std::vector<Entry> stability_checks() {
  return {
      {{"scale_actions_per_window", Bound::kAtMost, {}, {"after_s", "window_s"},
        "most scale actions in any window_s (default 3600) after after_s"}, scale_actions_per_window},
      {{"oscillations", Bound::kAtMost, {}, {"after_s", "within_ticks"},
        "up-down-up or down-up-down of a variant within within_ticks (default 3) ticks"}, oscillations},
      {{"time_to_floor_s", Bound::kAtMost, {"after_s"}, {"floor"},
        "s after after_s until the fleet stays at its floor (per model: 0 with scale to zero, else max(1, sum of min))"},
       time_to_floor_s},
      {{"idle_gpu_hours", Bound::kAtMost, {"after_s"}, {}, "GPU-hours of replicas held after after_s"},
       idle_gpu_hours},
  };
}

}  // namespace capstan::sim::checks
