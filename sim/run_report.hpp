// The final report of one simulated run: request counts, latency percentiles over
// requests (from the streaming sketches of outcome_stats.hpp, within 0.5 %), SLO
// attainment, GPU-hours, cost and scale actions.
#pragma once

#include <vector>

#include "sim/fleet.hpp"
#include "sim/model_server.hpp"
#include "sim/outcome_stats.hpp"

namespace capstan::sim {

struct RunReport {
  double duration_s = 0;
  long long requests = 0;    // arrived
  long long completed = 0;
  long long failed = 0;      // abandoned after the client timeout, or rejected as too long
  long long in_flight = 0;   // still queued or running at the end
  // Nearest-rank percentiles over completed requests, within the sketch's 0.5 %
  // relative error; ITL is each request's mean gap.
  double ttft_p50_ms = 0, ttft_p99_ms = 0;
  double itl_p50_ms = 0, itl_p99_ms = 0;
  double e2e_mean_s = 0;
  // Share of finished requests (completed + failed) that completed within both targets.
  double slo_attainment = 0;
  double replica_hours = 0;  // creation until gone, loading included
  double gpu_hours = 0;
  double cost = 0;           // cost_per_replica_hour x replica-hours
  long long preemptions = 0;
  std::vector<ScaleAction> scale_actions;
};

// The request figures of a report (counts, latency percentiles, SLO attainment).
void fill_outcomes(RunReport& report, const OutcomeStats& outcomes);

RunReport make_run_report(const OutcomeStats& outcomes, long long arrived, const Fleet& fleet,
                          double now_s);

// Nearest-rank percentile (q in [0, 100]) of unsorted values; 0 when empty.
double percentile(std::vector<double> values, double q);

}  // namespace capstan::sim
