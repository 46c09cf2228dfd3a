// Streaming aggregates of request outcomes: counts, SLO attainment against targets
// fixed up front, the e2e latency sum, and TTFT / per-request mean ITL quantile
// sketches (latency_sketch.hpp, 0.5 % relative error). Replaces keeping every
// RequestOutcome: the size of an OutcomeStats does not depend on how many requests
// it has seen, so a simulation's memory is bounded by the requests in flight.
#pragma once

#include <cstdint>

#include "domain/model/slo_targets.hpp"
#include "sim/latency_sketch.hpp"
#include "sim/model_server.hpp"

namespace capstan::sim {

// A completed request within both targets; a 0 target is always met
// (domain/model/slo_targets.hpp), and with both 0 every completed request meets the SLO.
bool meets_slo(const RequestOutcome& outcome, const SloTargets& slo);

class OutcomeStats {
 public:
  explicit OutcomeStats(SloTargets slo = {}) : slo_(slo) {}

  void add(const RequestOutcome& outcome);
  void merge(const OutcomeStats& other);  // same targets assumed

  const SloTargets& slo() const { return slo_; }
  long long completed() const { return completed_; }
  long long failed() const { return failed_; }
  long long met_slo() const { return met_; }
  long long preempted_requests() const { return preempted_; }
  double e2e_sum_s() const { return e2e_sum_s_; }
  const LatencySketch& ttft_ms() const { return ttft_ms_; }
  const LatencySketch& itl_ms() const { return itl_ms_; }

 private:
  SloTargets slo_;
  long long completed_ = 0;
  long long failed_ = 0;
  long long met_ = 0;
  long long preempted_ = 0;
  double e2e_sum_s_ = 0;
  LatencySketch ttft_ms_;
  LatencySketch itl_ms_;
};

}  // namespace capstan::sim
