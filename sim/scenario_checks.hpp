// The checks of the scenario suite (issue 9): each turns one policy run -- the
// harness's per-tick records and final report -- into one figure, compared with the
// scenario's limit. A check is either an upper bound (the figure must be <= limit) or
// a lower bound (>= limit). A figure that cannot be measured (e.g. TTFT never came
// back within the SLO) is NaN and fails; JSON writes it as null.
//
// The catalogue, by failure mode users report (one file per family, sim/checks_*.cpp):
//   oscillation      scale_actions_per_window, oscillations
//   idle GPUs        time_to_floor_s, idle_gpu_hours
//   blind to bursts  ttft_recovery_s, queue_response_ticks
//   slow starts      scale_ups_while_loading, peak_replicas_vs_oracle, forecast_error, ramp_lead_s
//   metric gaps      below_last_good, metrics_missing_decisions, resume_ticks
//   shared budget    budget_exceeded_gpus, budget_blocked_reasons, spillover_off_cheapest
//   disaggregation   roles_scaled, pd_ratio_outside_band
//   overall          slo_attainment, ttft_p99_ms, gpu_hours_vs_oracle
// No check knows a policy by name or reads a reason's wording: figures come from what
// the fleet did (counts, queues, decisions' targets and reason codes) and from the
// policies' typed events (ForecastMade), so a peer that behaves as well passes. A run of several models is
// checked over all of them; `model` (an index into the scenario's models) narrows
// slo_attainment and ttft_p99_ms to one.
//
// GPUs held, for the budget: replicas pending, loading or ready. Draining replicas are
// not counted: they were given back (the budget stage counts them out too), and only
// finish the requests they hold.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/fleet_config.hpp"
#include "sim/harness.hpp"

namespace capstan::sim {

struct Scenario;
struct CheckSpec;

enum class Bound { kAtMost, kAtLeast };

struct CheckInfo {
  std::string name;
  Bound bound = Bound::kAtMost;
  std::vector<std::string> required;  // parameters (all numbers, >= 0)
  std::vector<std::string> optional;
  std::string description;
  bool needs_gpu_budget = false;  // the scenario must set gpu_budget > 0
  bool needs_oracle = false;      // prepared with the offline oracle (scenario_runner.hpp)
  bool needs_per_replica_rate = false;  // prepared with one replica's sustainable rate per variant
};

const std::vector<CheckInfo>& check_catalogue();
const CheckInfo* find_check(const std::string& name);  // nullptr when unknown

struct CheckResult {
  std::string name;
  double value = 0;  // NaN: not measurable
  double limit = 0;
  Bound bound = Bound::kAtMost;
  bool passed = false;
};

struct CheckContext {
  const Scenario& scenario;
  const std::vector<FleetConfig>& fleets;  // per model, as run.models
  const PolicyRun& run;
  std::optional<double> oracle_gpu_hours;  // when a check needs it
  std::optional<int> oracle_peak_replicas;
  // One replica's sustainable rate at the SLO, per variant of the run; empty when not
  // computed (the check is then not measurable).
  const std::vector<double>& sustainable_rps;
};

CheckResult evaluate_check(const CheckSpec& spec, const CheckContext& context);

}  // namespace capstan::sim
