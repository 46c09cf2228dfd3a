// A scenario of the suite (issue 9; sim/scenarios/*.yaml): one or several models
// (each a fleet, a workload and a priority), an optional GPU budget shared by them, an
// SLO, a tick interval, a duration, optional scale-to-zero retention and metrics gap,
// and the checks the run must pass. Scenario files are data, so a user adds one without
// recompiling; paths inside them (fleet, trace) are relative to the scenario file.
//
//   name: burst
//   fleet: fleets/one-h100.yaml
//   workload: {generator: step, steps: [[0, 4], [1800, 20], [2400, 4]],
//              lengths: {input_mean: 512, input_cv: 0.8, output_mean: 128, output_cv: 0.8}}
//   duration_s: 3600
//   tick_s: 30
//   slo: {ttft_ms: 2000, itl_ms: 100, attainment: 0.99}
//   checks:
//     - {check: ttft_recovery_s, limit: 330, at_s: 1800, until_s: 2400}
//
// Optional PolicyConfig knobs for every policy run on it:
//
//   policy: {pd_band: [0.4, 1.0], max_step_up: 2, max_step_down: 1}
//
// Several models replace `fleet` and `workload` with a list, all scaled by one policy:
//
//   models:
//     - {fleet: fleets/chat.yaml, workload: {generator: poisson, rate_rps: 8}, priority: 2}
//     - {fleet: fleets/batch.yaml, workload: {generator: poisson, rate_rps: 6}}
//   gpu_budget: 24
//
// Loading validates everything (the checks against the catalogue of
// scenario_checks.hpp) and errors name the file, the key and the rule broken.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/stages/pd_ratio.hpp"
#include "domain/core/result.hpp"
#include "domain/core/types.hpp"
#include "sim/harness.hpp"
#include "sim/policy_settings.hpp"
#include "sim/sustainable_rate.hpp"

namespace capstan::sim {

struct LengthSpec {
  double input_mean = 512, input_cv = 0;    // cv 0: every request the mean
  double output_mean = 128, output_cv = 0;
  double input_max = 0;  // > 0: longer prompts are cut to it (the model's context)
};

// One of: poisson {rate_rps}; diurnal {mean_rps, amplitude, period_s, phase_rad};
// step {steps: [[start_s, rate_rps], ...]}; burst {base_rps, burst_rps, period_s,
// burst_s}; ramp {from_rps, to_rps, at_s, ramp_s}; trace {path, window, speedup,
// rate_scale} (a window of a trace file shipped in the repository); rates {path,
// time_scale, rate_scale}: Poisson arrivals at a rate curve read from a CSV of
// `window_start_s,rate_rps[,...]` rows (a header row is skipped), linear between window
// midpoints, its time divided by time_scale and its rates multiplied by rate_scale.
struct WorkloadSpec {
  std::string generator;
  std::map<std::string, double> params;               // the generator's numbers
  std::vector<std::pair<double, double>> steps;       // step only
  std::string trace_path;                             // trace only, resolved
  double window_from_s = 0, window_to_s = -1;         // trace only; to < 0: to the end
  LengthSpec lengths;
  std::vector<std::pair<double, double>> rate_points; // rates only: (time_s, rate_rps), scaled
};

struct CheckSpec {
  std::string check;                     // a name of the catalogue (scenario_checks.hpp)
  double limit = 0;
  std::map<std::string, double> params;  // e.g. after_s, window_s, from_s, to_s
};

// One model of a scenario; a one-model file (`fleet` + `workload`) has priority 1.
struct ModelSpec {
  std::string fleet_path;  // resolved against the scenario file's folder
  WorkloadSpec workload;
  int priority = 1;        // >= 1; higher is served first under the GPU budget
};

// PolicyConfig knobs a scenario sets for every policy it runs (`policy:`; defaults off).
struct ScenarioPolicy {
  RatioBand pd_band = PolicySettings{}.pd_band;  // `pd_band: [min_prefill_per_decode, max_prefill_per_decode]`
  int max_step_up = PolicySettings{}.max_step_up;  // replicas per tick, 0 = unlimited
  int max_step_down = PolicySettings{}.max_step_down;
  double hpa_target = 0;  // `hpa_target`: running + waiting requests per replica; 0 = the fleets' or the default
};

struct Scenario {
  std::string name;
  std::string description;
  std::string file;               // the scenario file itself
  std::vector<ModelSpec> models;  // at least one; fleets name distinct models
  int gpu_budget = PolicySettings{}.gpu_budget;  // GPUs shared by every model; 0 = unlimited
  double duration_s = 3600;
  double tick_s = 30;
  std::uint64_t seed = 1;
  // Explicit: at least one target > 0; a 0 target leaves its metric unconstrained.
  SloTargets slo = PolicySettings{}.slo;
  // slo.attainment: the share of requests the SLO promises within both targets. The
  // oracle sizes each replica for it, so that the GPU-hours a policy is compared with
  // are those of the same promise.
  double slo_attainment = PolicySettings{}.slo_attainment;
  double scale_to_zero_retention_s = PolicySettings{}.scale_to_zero_retention_s;  // 0 = off
  double scale_down_cooldown_s = PolicySettings{}.scale_down_cooldown_s;
  std::optional<MetricsGap> metrics_gap;
  ScenarioPolicy policy;
  std::vector<CheckSpec> checks;
};

Result<Scenario> load_scenario(const std::string& path);

// Every *.yaml directly in `dir`, sorted by scenario name; the first bad file fails.
Result<std::vector<Scenario>> load_scenarios(const std::string& dir);

}  // namespace capstan::sim
