// The offline oracle: a lower bound on the GPU-hours (and, separately, on the cost)
// any policy needs to serve a trace at the SLO, computed with perfect knowledge of
// the trace (sim/README.md, "The oracle").
//
// 1. Per variant, the sustainable rate of one replica at the SLO under the trace's
//    own token-length mix (sustainable_rate.hpp). A variant of a prefill/decode split
//    is probed beside enough replicas of the other role that they never limit it, so
//    its figure is its own role's.
// 2. Per window of window_s, the demand is the highest arrival rate over the
//    demand_bucket_s buckets inside it; the plan is the fewest-GPU mix of replicas
//    (within each variant's [min, max]) whose sustainable rates add up to it. A
//    second plan minimises cost the same way (cost per sustainable rate), for the
//    cost bound. A window whose demand exceeds every replica at max gets them all.
//    In a prefill/decode split every request passes through both roles, so each role
//    gets its own mix covering the whole demand; the split is feasible only when both
//    roles sustain a positive rate.
// 3. Each plan holds its replicas for the window; every increase from one window to
//    the next is started pending_s + cold_start_s ahead, and that start-up time is
//    charged. The fleet's initial replicas are warm at t = 0, as for the policies.
#pragma once

#include <string>
#include <vector>

#include "sim/fleet_config.hpp"
#include "sim/sustainable_rate.hpp"
#include "sim/trace_demand.hpp"

namespace capstan::sim {

struct OracleOptions {
  double window_s = 300;
  SustainableRateOptions rate;
};

// What a mix is chosen from: one entry per variant.
struct MixOption {
  double rate_per_replica_rps = 0;
  double weight_per_replica = 0;  // GPUs, or cost per hour
  int min_replicas = 0;
  int max_replicas = 0;
};

// The replica counts of least total weight covering demand_rps; ties go to fewer
// replicas, then to the earlier variant. All at max when demand exceeds them.
std::vector<int> cheapest_mix(const std::vector<MixOption>& options, double demand_rps);

struct OracleWindow {
  double start_s = 0;
  double demand_rps = 0;
  std::vector<int> replicas;       // the GPU-hours plan, per variant
  std::vector<int> cost_replicas;  // the cost plan, per variant
  bool over_capacity = false;
};

struct Oracle {
  SloTargets slo;
  double attainment_target = 0;  // the share of requests each replica's rate is sized to meet
  double window_s = 0;
  std::vector<std::string> variants;
  std::vector<SustainableRate> sustainable;  // per variant
  std::vector<OracleWindow> windows;
  double gpu_hours = 0;          // GPU-hours plan, start-up included
  double startup_gpu_hours = 0;  // of which charged for cold starts
  double cost = 0;               // cost plan
  int windows_over_capacity = 0;
  bool feasible = false;         // some variant sustains a positive rate at the SLO
};

Oracle compute_oracle(const FleetConfig& fleet, const TraceDemand& demand, const SloTargets& slo,
                      const OracleOptions& options = {});

}  // namespace capstan::sim
