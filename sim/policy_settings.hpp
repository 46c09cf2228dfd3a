// What a run of the simulator tells the policies, whoever starts it: `capstan simulate`
// from its flags and fleet, `capstan scenarios` from a scenario file and its fleets. One
// plain value with the defaults stated once, and one function that turns it into the
// PolicyConfig every policy reads, so the two commands cannot configure a policy
// differently for the same run.
#pragma once

#include <span>

#include "domain/model/slo_targets.hpp"
#include "domain/stages/pd_ratio.hpp"
#include "domain/tick/policy_config.hpp"
#include "sim/fleet_config.hpp"
#include "sim/sustainable_rate.hpp"

namespace capstan::sim {

// The defaults are PolicyConfig's, and the oracle's attainment.
struct PolicySettings {
  // The SLO requests are judged by and the policies size for; explicit (at least one
  // target > 0, a 0 target leaving its metric unconstrained: slo_targets.hpp).
  SloTargets slo = PolicyConfig{}.slo;
  // The share of requests the SLO promises within its targets: the oracle sizes for it,
  // the policies' tail probability is 1 - it.
  double slo_attainment = SustainableRateOptions{}.attainment_target;
  // The gateway's timeout (longest_client_timeout_s of the run's fleets); 0 = none.
  double client_timeout_s = PolicyConfig{}.client_timeout_s;
  double scale_down_cooldown_s = PolicyConfig{}.scale_down_cooldown_s;
  double scale_to_zero_retention_s = PolicyConfig{}.scale_to_zero_retention_s;  // 0 = off
  int gpu_budget = PolicyConfig{}.gpu_budget;  // GPUs shared by every model; 0 = unlimited
  RatioBand pd_band = PolicyConfig{}.pd_band;  // prefill:decode replicas per model; {0, 0} = off
  int max_step_up = PolicyConfig{}.max_step_up;  // replicas per tick, 0 = unlimited
  int max_step_down = PolicyConfig{}.max_step_down;
  // hpa: running + waiting requests per replica it targets.
  double hpa_target_per_replica = PolicyConfig{}.target_concurrency_per_replica;
};

// What an operator configures as its gateway's timeout: the longest of the fleets'.
double longest_client_timeout_s(std::span<const FleetConfig> fleets);

// The HPA target the operator set in a fleet (the first fleet that sets one), or `fallback`.
double fleet_hpa_target(std::span<const FleetConfig> fleets, double fallback);

PolicyConfig policy_config(const PolicySettings& settings);

}  // namespace capstan::sim
