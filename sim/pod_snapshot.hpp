// Turns a replica's cumulative counters and histograms, sampled at the start and the
// end of an observation window, into the capstan::PodMetrics the autoscaler consumes
// (the in-process equivalent of rate()/increase() over a scraped vLLM + EPP pair).
// Averages are over the window's events: TTFT over first tokens, ITL over output-token
// gaps, token counts over requests finished in the window. An empty window gives 0.
// The per-request ITL histogram is the window's increase of each bucket.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "domain/core/types.hpp"
#include "sim/replica.hpp"
#include "sim/router.hpp"

namespace capstan::sim {

struct CounterSample {
  double time_s = 0;
  std::uint64_t routed = 0;          // router attempts (success) to this pod
  double ttft_sum_s = 0;
  std::uint64_t ttft_count = 0;
  double itl_sum_s = 0;
  std::uint64_t itl_count = 0;
  double prompt_tokens_sum = 0;
  std::uint64_t prompt_count = 0;
  double generation_tokens_sum = 0;
  std::uint64_t generation_count = 0;
  std::vector<std::uint64_t> request_itl_buckets;  // per bucket, +Inf last (not cumulative)
  double request_itl_sum_s = 0;
};

CounterSample sample_counters(const Replica& replica, const Router& router, double now_s);

// PodMetrics over (before, now]; gauges (KV usage, queue, running, ready) are read live.
PodMetrics pod_metrics(const Replica& replica, const CounterSample& before,
                       const CounterSample& now);

}  // namespace capstan::sim
