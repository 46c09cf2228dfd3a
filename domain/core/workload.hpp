// Per-variant workload summary from per-pod metrics (seed 000, "workload aggregation"):
// only pods with arrivals count; token lengths, TTFT and ITL are averaged weighted by
// each pod's arrival rate; the total arrival rate is their sum.
#pragma once

#include <span>

#include "domain/core/types.hpp"

namespace capstan {

struct VariantWorkload {
  double total_arrival_rps = 0;
  double avg_input_tokens = 0;
  double avg_output_tokens = 0;
  double avg_ttft_ms = 0;
  double avg_itl_ms = 0;
  double avg_running = 0;  // requests in the running batch, mean over the busy pods
  int busy_pods = 0;  // pods with arrival rate > 0

  bool has_traffic() const { return busy_pods > 0; }
};

// Pods with a non-finite or non-positive arrival rate are skipped.
VariantWorkload aggregate(std::span<const PodMetrics> pods);

// As aggregate(), but leaves out pods started less than transient_delay_s ago: a
// freshly started replica's latencies describe its warm-up, not the hardware
// (WVA's TransientDelaySeconds, 120 s).
VariantWorkload aggregate_for_tuning(std::span<const PodMetrics> pods, double transient_delay_s);

}  // namespace capstan
