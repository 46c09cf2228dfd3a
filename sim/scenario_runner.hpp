// Runs a scenario (scenario.hpp) for a policy through the same harness as `capstan
// simulate` (harness.hpp: Simulation + Policy::tick), every model of the scenario in
// one run, then evaluates each of its checks (scenario_checks.hpp). A scenario is
// prepared once -- fleets loaded, oracle computed when a check needs it -- and then run
// for any number of policies. Same scenario, seed and policy -> identical result (and
// identical JSON).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/policies/policy.hpp"
#include "domain/core/result.hpp"
#include "sim/fleet_config.hpp"
#include "sim/harness.hpp"
#include "sim/policy_settings.hpp"
#include "sim/scenario.hpp"
#include "sim/scenario_checks.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct PreparedScenario {
  Scenario scenario;
  std::vector<FleetConfig> fleets;  // per model of the scenario
  // When a check needs the offline oracle (the fleet-level one, fleet_oracle.hpp,
  // computed per model, without the budget):
  std::optional<double> oracle_gpu_hours;   // summed over models
  std::optional<int> oracle_peak_replicas;  // most replicas the models' plans hold at once
  // One replica's sustainable rate at the SLO under its model's length mix, per variant
  // of the run (PolicyRun::variants order; sustainable_rate.hpp, an estimate); empty
  // when no check needs it.
  std::vector<double> sustainable_rps;
  // The best static fleet of each model (static_fleet.hpp), without the budget: its
  // GPU-hours summed over models (nullopt when some model has none that meets the
  // target), and its replicas per variant of the run.
  std::optional<double> static_gpu_hours;
  std::vector<int> static_replicas;
};

// Overrides for short runs in tests and for runs over several seeds; nullopt keeps the
// scenario's own value.
struct ScenarioOverrides {
  std::optional<double> duration_s;
  std::optional<std::uint64_t> seed;
  bool static_fleet = true;  // false: skip the best static fleet (it runs the workload ~10 times)
};

// Errors name the scenario file and what could not be loaded.
Result<PreparedScenario> prepare_scenario(Scenario scenario, const ScenarioOverrides& overrides = {});

// Model `model`'s workload, arrivals cut at the scenario's duration; generated
// workloads are seeded model_seed(scenario seed, model).
Result<std::unique_ptr<TraceSource>> open_workload(const Scenario& scenario, std::size_t model = 0);

// What the policies are configured with: the scenario's SLO, retention, cooldown, GPU
// budget and policy knobs, and the longest client timeout of its fleets (what an
// operator configures as its gateway's timeout); policy_config() of it.
PolicySettings policy_settings(const PreparedScenario& prepared);
PolicyConfig policy_config(const PreparedScenario& prepared);

struct ScenarioResult {
  std::string scenario;
  std::string policy;
  std::uint64_t seed = 0;
  double gpu_hours = 0;                      // the run's
  std::optional<double> static_gpu_hours;    // the best static fleet's (PreparedScenario)
  bool passed = false;  // every check passed and the policy never failed
  std::vector<CheckResult> checks;
  std::string error;    // the policy's first error, if any
  PolicyRun run;        // for the HTML report
};

// Runs `policy` (a fresh instance: its state is the run's). Errors only when the
// workload cannot be read. `on_tick`, when set, sees every tick's input and decisions
// (what `capstan scenarios run --record` writes).
Result<ScenarioResult> run_scenario(const PreparedScenario& prepared, Policy& policy,
                                    HarnessOptions::TickObserver on_tick = {});
// The same with a registered policy, made with policy_config(prepared).
Result<ScenarioResult> run_scenario(const PreparedScenario& prepared, const std::string& policy_name,
                                    HarnessOptions::TickObserver on_tick = {});

// {"scenarios":[{"scenario","policy","seed","passed","gpu_hours","static_gpu_hours","vs_static",
//                "checks":[{"name","value","limit","passed"}]}]};
// a value that cannot be measured is null. Nothing wall-clock goes in.
nlohmann::json scenario_results_json(const std::vector<ScenarioResult>& results);

}  // namespace capstan::sim
