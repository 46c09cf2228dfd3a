// What one simulated model server exposes, with the meaning of vLLM's metrics of the
// same names (the renderer in prometheus_text.hpp prints them under those names).
// Counters and histograms are cumulative since the replica started; gauges are read
// live from the server. Forward-pass metrics describe the iterations themselves.
#pragma once

#include <cstdint>

#include "sim/histogram.hpp"

namespace capstan::sim {

// One scheduler iteration (forward pass) as it was executed.
struct ForwardPass {
  double start_s = 0;
  double wall_time_ms = 0;
  long long scheduled_prefill_tokens = 0;
  long long scheduled_decode_requests = 0;
  long long decode_kv_tokens = 0;
  int queued_requests = 0;   // waiting when the iteration was scheduled
  int running_requests = 0;  // in the batch
};

struct ServerMetrics {
  explicit ServerMetrics(int max_model_tokens)
      : request_prompt_tokens(vllm_token_count_buckets(max_model_tokens)),
        request_generation_tokens(vllm_token_count_buckets(max_model_tokens)) {}

  Histogram time_to_first_token_s{vllm_ttft_buckets_s()};
  Histogram time_per_output_token_s{vllm_tpot_buckets_s()};
  // Per finished request with two or more output tokens: its mean gap between them
  // (vLLM v1's vllm:request_time_per_output_token_seconds, same buckets as TPOT).
  Histogram request_time_per_output_token_s{vllm_tpot_buckets_s()};
  Histogram e2e_request_latency_s{vllm_e2e_buckets_s()};
  Histogram request_prompt_tokens;
  Histogram request_generation_tokens;
  std::uint64_t request_success_total = 0;
  std::uint64_t request_failure_total = 0;   // abandoned (client timeout) or rejected
  std::uint64_t arrivals_total = 0;
  std::uint64_t num_preemptions_total = 0;
  std::uint64_t prompt_tokens_total = 0;     // computed prompt tokens (cache misses)
  std::uint64_t generation_tokens_total = 0;
  std::uint64_t prefix_cache_queries = 0;    // prompt tokens looked up
  std::uint64_t prefix_cache_hits = 0;       // of those, found in the cache
  std::uint64_t iterations_total = 0;
  double busy_time_s = 0;                    // sum of forward-pass wall times
  ForwardPass last_forward_pass;
};

}  // namespace capstan::sim
