// What an operator configures for the policies, whoever reads it: `capstan simulate` from
// its flags and fleet, `capstan scenarios` from a scenario file, the daemon from its
// layered configuration (config/). One plain value with the defaults stated once, and
// one function that turns it into the PolicyConfig every policy reads, so no two
// commands can configure a policy differently from the same settings.
#pragma once

#include <string>

#include "domain/model/slo_targets.hpp"
#include "domain/stages/pd_ratio.hpp"
#include "domain/tick/policy_config.hpp"

namespace capstan {

// The share of requests an SLO promises within its targets when none is configured.
inline constexpr double kDefaultSloAttainment = 0.95;

// The defaults are PolicyConfig's.
struct PolicySettings {
  // The SLO requests are judged by and the policies size for; explicit (at least one
  // target > 0, a 0 target leaving its metric unconstrained: slo_targets.hpp).
  SloTargets slo = PolicyConfig{}.slo;
  // The share of requests the SLO promises within its targets: the policies' tail
  // probability is 1 - it.
  double slo_attainment = kDefaultSloAttainment;
  double slo_multiplier = PolicyConfig{}.slo_multiplier;  // k, when the SLO is derived
  // The gateway's timeout; 0 = none.
  double client_timeout_s = PolicyConfig{}.client_timeout_s;
  double scale_down_cooldown_s = PolicyConfig{}.scale_down_cooldown_s;
  double scale_to_zero_retention_s = PolicyConfig{}.scale_to_zero_retention_s;  // 0 = off
  int gpu_budget = PolicyConfig{}.gpu_budget;  // GPUs shared by every model; 0 = unlimited
  RatioBand pd_band = PolicyConfig{}.pd_band;  // prefill:decode replicas per model; {0, 0} = off
  int max_step_up = PolicyConfig{}.max_step_up;  // replicas per tick, 0 = unlimited
  int max_step_down = PolicyConfig{}.max_step_down;
  std::string predictor = PolicyConfig{}.predictor;  // forecasting policies
  // hpa: running + waiting requests per replica it targets.
  double hpa_target_per_replica = PolicyConfig{}.target_concurrency_per_replica;
};

PolicyConfig policy_config(const PolicySettings& settings);

}  // namespace capstan
