// The configuration every policy reads at a tick (each reads the knobs it needs). A
// plain value passed to learn, plan and allocate, never held by a policy, so a
// configuration reload takes effect at the next tick.
#pragma once

#include <string>

#include "domain/model/slo.hpp"
#include "domain/stages/pd_ratio.hpp"

namespace capstan {

// Knobs common to policies; each policy reads the ones it needs and ignores the rest.
struct PolicyConfig {
  SloTargets slo{2000, 100};       // TTFT / ITL targets, ms; a 0 target leaves its metric unconstrained
  double slo_multiplier = 3.0;     // when the SLO is to be derived (queueing family)
  int gpu_budget = 0;              // total GPUs across models; 0 = unlimited
  double scale_to_zero_retention_s = 0;  // 0 = scale to zero off
  double scale_down_cooldown_s = 300;
  int max_step_up = 0;             // replicas per tick, 0 = unlimited
  int max_step_down = 0;
  RatioBand pd_band;               // prefill:decode replicas per model; {0, 0} = off
  std::string predictor = "arima";  // forecasting policies
  // The share of requests the SLO lets miss its targets (1 - the SLO's attainment; set
  // so by scenarios and `simulate`): hybrid bounds P(TTFT > target) and, by the pods'
  // per-request ITL histograms, P(ITL > target) by it; erlang P(wait > TTFT target).
  double tail_probability = 0.05;
  // How long clients wait for a response before they give up (the gateway's or
  // client's timeout), 0 = unknown: hybrid drains no backlog longer than they wait.
  double client_timeout_s = 0;
  double target_concurrency_per_replica = 32;  // hpa: running + waiting requests
};

}  // namespace capstan
