// The driver the autoscaler harness uses: a fleet fed by a trace, in virtual time.
//
//   Simulation sim(fleet_config, std::move(trace), seed, {.ttft_ms = 2000, .itl_ms = 100});
//   for (double t = tick; sim.advance_to(t); t += tick) {
//     Observation obs = sim.observe();          // per-variant PodMetrics + fleet state
//     sim.set_desired("llama70b-h100", n);      // apply the policy's decision
//   }
//   RunReport report = sim.report();
//
// advance_to(t) processes every arrival and replica event up to t and returns false
// once the trace is exhausted and the fleet is idle (or a trace row was malformed:
// see error()). observe() reports each live pod over the window since the previous
// observe(). The same seed and inputs give identical results.
//
// Finished requests are folded into streaming aggregates (outcome_stats.hpp) as they
// finish; only those of the last advance_to() are kept individually, so memory is
// bounded by the requests in flight and per step, not by the trace length. The SLO
// targets are given up front because attainment is counted as requests finish.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "domain/core/types.hpp"
#include "sim/fleet.hpp"
#include "sim/outcome_stats.hpp"
#include "sim/pod_snapshot.hpp"
#include "sim/run_report.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct VariantObservation {
  VariantState state;            // desired, current, pending, loading, ready, draining
  std::vector<PodMetrics> pods;  // every replica not gone, over the last window
  // The most recent iterations of its replicas since the last observe() (at most
  // ModelServer::kRecentForwardPasses per replica).
  std::vector<ForwardPass> forward_passes;
  // Creation-to-ready times of the replicas that became ready since the last observe().
  std::vector<double> new_cold_starts_s;
};

struct Observation {
  double now_s = 0;
  double window_s = 0;                   // since the previous observe() (or the start)
  long long arrivals = 0;                // requests that reached the router in the window
  std::vector<VariantObservation> variants;
  std::size_t upstream_queue_size = 0;   // inference_extension_flow_control_queue_size
  long long upstream_queue_bytes = 0;
  // Disaggregated fleets: prefilled requests waiting for a ready decode replica (their
  // KV held on the prefill side); not in upstream_queue_size, which holds requests
  // that have not started. Always 0 in a fleet of role-both variants.
  std::size_t decode_queue_size = 0;
  int requests_in_system = 0;            // upstream + decode queues, waiting, running, in transfer
};

class Simulation {
 public:
  Simulation(FleetConfig config, std::unique_ptr<TraceSource> trace, std::uint64_t seed,
             SloTargets slo = {});

  bool advance_to(double t_s);
  Observation observe();
  Result<int> set_desired(const std::string& variant, int replicas);
  RunReport report() const;

  double now_s() const { return now_s_; }
  const Fleet& fleet() const { return fleet_; }
  const std::optional<Error>& error() const { return error_; }
  bool finished() const { return trace_done_ && fleet_.idle(); }
  // Every request of the trace has arrived (or the trace failed).
  bool trace_exhausted() const { return trace_done_ && !next_request_; }
  long long arrived() const { return arrived_; }
  const OutcomeStats& stats() const { return stats_; }
  // The requests that finished during the last advance_to(), in the order they ended.
  const std::vector<RequestOutcome>& recent_outcomes() const { return recent_outcomes_; }

 private:
  bool pull_next();

  Fleet fleet_;
  std::unique_ptr<TraceSource> trace_;
  std::optional<Request> next_request_;
  bool trace_done_ = false;
  std::optional<Error> error_;
  double now_s_ = 0;
  long long arrived_ = 0;
  OutcomeStats stats_;
  std::vector<RequestOutcome> recent_outcomes_;
  std::map<std::string, CounterSample> last_samples_;
  std::vector<bool> cold_start_reported_;  // by index in fleet_.replicas()
  double last_observe_s_ = 0;
  long long arrived_at_last_observe_ = 0;
};

}  // namespace capstan::sim
