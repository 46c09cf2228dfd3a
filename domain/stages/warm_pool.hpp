// Warm-pool optimizer of Inferscale (seed 004, chapter 6): how many replicas to keep
// warm when an idle GPU costs money and an SLA violation costs more. Minimises
//   J(k) = cost_per_gpu_hour * gpus_per_replica * k + sla_penalty_per_hour * P_k(wait > SLA)
// scanning k upward from the stable minimum max(floor(lambda/mu) + 1, min_replicas) and
// stopping at the first k whose J rises above the best so far: GPU cost grows linearly
// while the Erlang-C tail falls exponentially, so the curve has one valley. Ties keep
// scanning, as in the seed. Bounded above by max_replicas.
#pragma once

#include <string>

#include "domain/core/result.hpp"

namespace capstan {

struct WarmPoolInputs {
  double arrival_rate_rps = 0;       // forecast demand, >= 0
  double service_rate_rps = 0;       // what one replica serves, > 0
  double sla_s = 0;                  // queueing-delay bound, >= 0
  double cost_per_gpu_hour = 0;      // >= 0
  int gpus_per_replica = 1;          // >= 1
  double sla_penalty_per_hour = 0;   // cost of P(violation) = 1 for an hour, >= 0
  int min_replicas = 0;              // >= 0
  int max_replicas = 100;            // >= max(1, min_replicas)
};

struct WarmPoolChoice {
  int replicas = 0;
  double cost_per_hour = 0;          // J(replicas)
  double gpu_cost_per_hour = 0;
  double penalty_per_hour = 0;
  double p_violation = 1;            // P(wait > sla_s) at replicas
  int stable_min_replicas = 0;       // floor(lambda/mu) + 1
  bool capped = false;               // max_replicas stopped the scan, not the valley
  std::string reason;                // one sentence a person can read
};

// Names the offending field on invalid input.
Result<WarmPoolChoice> optimize_warm_pool(const WarmPoolInputs& in);

// J(k) alone, for reports and tests; 1 as P(violation) when k is unstable.
Result<double> warm_pool_cost_per_hour(const WarmPoolInputs& in, int replicas);

}  // namespace capstan
