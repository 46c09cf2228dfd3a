// The fleet-level oracle: a lower bound on the GPU-hours (and, separately, on the cost)
// with which the simulated fleet serves a trace at the SLO's attainment, found by
// simulating the fleet itself (sim/README.md, "The oracle").
//
// The trace is cut into windows of window_s. For each window, the fleet -- pooled
// behind its router, every replica warm from the window's start, fed exactly that
// window's requests (arrival times kept) and left to finish them -- is probed at fixed
// replica counts (fixed_fleet_probe.hpp), and the cheapest counts per variant at which
// at least the attainment target of the window's requests meet both SLO targets are
// searched (count_search.hpp: each variant alone by galloping and bisection from the
// previous window's answer, then the cheaper mixes). A window without requests gets
// every variant's minimum without a probe; probes are cached per window and counts.
// A window that even every replica at max cannot serve at the target is planned for
// the attainment max reaches there (the best any run can do in it), and counted.
// Attainment is judged over the whole run, so a window may then be lowered below its
// own target where others meet more: along each window's descent (one replica fewer at
// a time, the one losing the fewest met requests, up to 16), the step losing the fewest
// met requests per GPU-second saved is taken while the run's met requests stay at the
// target (greedy; the cost plan is not pooled).
// Each plan holds its counts for its window; every increase from one window to the
// next is charged pending_s + cold_start_s of start-up GPU time. The fleet's initial
// replicas are warm at t = 0, as for the policies. GPU-hours are summed up to the last
// arrival.
//
// Why a lower bound (what it assumes is in sim/README.md): within a window a policy
// that holds fewer replicas than the plan for the whole window serves the window's
// requests with fewer warm replicas, no backlog from before and no cold start, and
// still misses the target -- except by what the window boundaries let it trade: a
// count that changes inside a window, and a miss in one window made up by the others
// (attainment is judged over the run). Those are the documented slack.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/model/slo_targets.hpp"
#include "sim/fleet_config.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct FleetOracleOptions {
  double window_s = 300;
  double attainment_target = 0.95;
  std::uint64_t seed = 1;
};

struct FleetOracleWindow {
  double start_s = 0;
  double length_s = 0;             // charged (the last window ends at the last arrival)
  long long requests = 0;
  std::vector<int> window_replicas;  // the cheapest that meets the target in this window alone
  std::vector<int> replicas;       // the GPU-hours plan, per variant, after pooling across windows
  long long met = 0;               // the window's requests met at `replicas`
  // One replica fewer at a time below window_replicas (the removal losing the fewest
  // met requests), and the requests met there: what pooling may lower the window to.
  std::vector<std::vector<int>> descent;
  std::vector<long long> descent_met;
  std::vector<int> cost_replicas;  // the cost plan, per variant
  // Even every variant at max misses the target: the plans are then the cheapest counts
  // that reach what max reaches (reachable_attainment), the best any run can do here.
  bool over_capacity = false;
  double reachable_attainment = 0;
};

struct FleetOracle {
  SloTargets slo;
  double attainment_target = 0;
  double window_s = 0;
  std::vector<std::string> variants;
  std::vector<FleetOracleWindow> windows;
  double gpu_hours = 0;          // GPU-hours plan, start-up included
  double startup_gpu_hours = 0;  // of which charged for cold starts
  double cost = 0;               // cost plan, start-up included
  int windows_over_capacity = 0;
  int windows_pooled = 0;        // planned below their own target, made up by other windows
  long long requests = 0;
  long long probes = 0;          // fleet simulations run
  bool feasible = false;         // some window had requests (an empty trace has no bound)
};

// Errors when the trace is malformed (the message names the file and line) or empty.
Result<FleetOracle> compute_fleet_oracle(const FleetConfig& fleet, TraceSource& trace, const SloTargets& slo,
                                         const FleetOracleOptions& options = {});

}  // namespace capstan::sim
