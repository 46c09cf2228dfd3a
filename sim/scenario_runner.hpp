// Runs a scenario (scenario.hpp) for a policy through the same harness as `capstan
// simulate` (harness.hpp: Simulation + Policy::tick), then evaluates each of its
// checks (scenario_checks.hpp). A scenario is prepared once -- fleet loaded, oracle
// computed when a check needs it -- and then run for any number of policies.
// Same scenario, seed and policy -> identical result (and identical JSON).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/policy.hpp"
#include "domain/result.hpp"
#include "sim/fleet_config.hpp"
#include "sim/harness.hpp"
#include "sim/scenario.hpp"
#include "sim/scenario_checks.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct PreparedScenario {
  Scenario scenario;
  FleetConfig fleet;
  std::optional<double> oracle_gpu_hours;
  std::optional<int> oracle_peak_replicas;  // most replicas the oracle's plan holds at once
};

// Overrides for short runs in tests; nullopt keeps the scenario's own value.
struct ScenarioOverrides {
  std::optional<double> duration_s;
};

// Errors name the scenario file and what could not be loaded.
Result<PreparedScenario> prepare_scenario(Scenario scenario, const ScenarioOverrides& overrides = {});

// The scenario's workload, arrivals cut at its duration.
Result<std::unique_ptr<TraceSource>> open_workload(const Scenario& scenario);

// What the policies are configured with: the scenario's SLO, retention and cooldown.
PolicyConfig policy_config(const Scenario& scenario);

struct ScenarioResult {
  std::string scenario;
  std::string policy;
  bool passed = false;  // every check passed and the policy never failed
  std::vector<CheckResult> checks;
  std::string error;    // the policy's first error, if any
  PolicyRun run;        // for the HTML report
};

// Runs `policy` (a fresh instance: its state is the run's). Errors only when the
// workload cannot be read.
Result<ScenarioResult> run_scenario(const PreparedScenario& prepared, Policy& policy);
// The same with a registered policy, made with policy_config(scenario).
Result<ScenarioResult> run_scenario(const PreparedScenario& prepared, const std::string& policy_name);

// {"scenarios":[{"scenario","policy","passed","checks":[{"name","value","limit","passed"}]}]};
// a value that cannot be measured is null. Nothing wall-clock goes in.
nlohmann::json scenario_results_json(const std::vector<ScenarioResult>& results);

}  // namespace capstan::sim
