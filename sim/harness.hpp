// The policy harness: drives one capstan::Policy over a Simulation in virtual time,
// the same tick() the daemon calls (DESIGN.md "The tick, as data"). Every tick_s it
// advances the fleet, turns the observation into a TickInput, calls the policy and
// applies each Decision with set_desired(); actuation then takes the variant's
// pending + cold-start time in the simulator, as it would on a cluster. It records a
// bounded per-tick series (one point per tick) for the report.
//
// No policy is special-cased: a new policy in the registry runs here unchanged. A
// policy that throws is not called again: the error is kept in the run (the fleet
// keeps its last targets) and the rest of the trace is still simulated, so the row
// shows what that failure cost. Same seed and inputs -> identical run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "domain/policy.hpp"
#include "domain/result.hpp"
#include "sim/fleet_config.hpp"
#include "sim/run_report.hpp"
#include "sim/simulation.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

// A window in which the policy sees no usable pod metrics (a Prometheus outage or a
// scrape that returns garbage): the pods and forward passes of the TickInput are
// dropped, or with `nan` every pod value is NaN. The fleet itself runs on.
struct MetricsGap {
  double from_s = 0;  // ticks with from_s <= now_s < to_s are blanked
  double to_s = 0;
  bool nan = false;
};

struct HarnessOptions {
  double tick_s = 30;
  SloTargets slo;
  std::uint64_t seed = 1;
  // After the last arrival, stop if the fleet has not drained within this time
  // (requests stuck upstream with no replica and no client timeout).
  double drain_limit_s = 3600;
  std::string model_namespace = "sim";
  // Keep ticking (policy included) until this time even when the fleet is idle and
  // the trace is over, e.g. to watch a fleet release replicas after traffic stops.
  double min_duration_s = 0;
  std::optional<MetricsGap> metrics_gap;  // default: metrics always present
};

// One tick of the run, for the plots. Latencies are over the requests that
// completed during the tick (exact nearest-rank; 0 when none completed).
struct TickRecord {
  double time_s = 0;
  double arrival_rate_rps = 0;
  std::vector<int> replicas;  // per variant, fleet order: not gone and not draining
  std::vector<int> ready;     // per variant
  long long completed = 0;
  long long failed = 0;
  double ttft_p50_ms = 0, ttft_p99_ms = 0;
  double itl_p50_ms = 0, itl_p99_ms = 0;
  std::vector<Decision> decisions;  // as returned by the policy this tick
};

struct PolicyRun {
  std::string policy;
  std::vector<std::string> variants;  // fleet order
  RunReport report;
  std::vector<TickRecord> series;
  std::string error;  // the first error of the policy (or of applying a decision); empty if none
};

// The policy's view of one observation. `desired` is the last target sent per
// variant (fleet order), nullopt before the first.
TickInput to_tick_input(const Observation& observation, const FleetConfig& fleet,
                        const std::vector<std::optional<int>>& desired, double interval_s,
                        const std::string& model_namespace);

// Drops (or NaNs) the pod metrics and forward passes of every variant of `input`.
void blank_metrics(TickInput& input, bool nan);

// Errors only when the trace is malformed (the message names the file and line).
Result<PolicyRun> run_policy(Policy& policy, const FleetConfig& fleet, std::unique_ptr<TraceSource> trace,
                             const HarnessOptions& options);

}  // namespace capstan::sim
