// The best static fleet: the cheapest fixed replica counts per variant with which the
// simulated fleet -- every replica warm from t = 0, never scaled -- serves the whole
// trace at the SLO's attainment. What not autoscaling at all would cost, beside every
// policy (`vs_static` = a policy's GPU-hours over this fleet's).
//
// Searched as the oracle searches a window (count_search.hpp), each probe a run of the
// whole trace (fixed_fleet_probe.hpp): each variant alone, then the cheapest mix, by
// GPUs (ties by cost). Its GPU-hours are those of that run, until the fleet has served
// every request, as a policy's are.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/model/slo_targets.hpp"
#include "sim/fleet_config.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

// Opens the trace afresh: a static search reads it once per probe.
using TraceOpener = std::function<Result<std::unique_ptr<TraceSource>>()>;

struct StaticFleetOptions {
  double attainment_target = 0.95;
  std::uint64_t seed = 1;
  bool from_start = false;  // also run `best` as a policy's run starts (StaticFleet::from_start)
};

struct StaticChoice {
  std::vector<int> replicas;  // per variant
  bool meets = false;         // meets the SLO's attainment target
  double attainment = 0;      // of its run (met / arrived)
  double gpu_hours = 0;
  double cost = 0;
};

struct StaticFleet {
  std::vector<std::string> variants;
  double attainment_target = 0;
  long long requests = 0;
  // The cheapest by GPUs, mixes included. When no fixed fleet meets the target
  // (best.meets false), the cheapest that reaches reachable_attainment, what every
  // variant at max reaches: the best a fleet that never scales can do.
  StaticChoice best;
  double reachable_attainment = 0;
  std::vector<std::optional<StaticChoice>> alone;   // per variant: it alone (others at min), if it meets at all
  // `best` started as a policy's run starts: the fleet's initial replicas warm at t = 0
  // and the rest asked for then, serving after their pending and cold start. Where it
  // falls short of the target, so does any policy holding no more than that fleet: the
  // traffic of the first start-up is not the fleet's to serve. None when `best` needs
  // no replica beyond the initial ones (it then starts as it runs).
  std::optional<StaticChoice> from_start;
  long long probes = 0;
};

// Errors when the trace cannot be opened or read, or is empty.
Result<StaticFleet> best_static_fleet(const FleetConfig& fleet, const TraceOpener& open, const SloTargets& slo,
                                      const StaticFleetOptions& options = {});

}  // namespace capstan::sim
