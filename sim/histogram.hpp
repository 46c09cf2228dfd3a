// A cumulative Prometheus-style histogram (fixed upper bounds, counts, sum), plus the
// bucket layouts vLLM uses for its latency and token-count histograms, so rendered
// metrics look like a real vLLM server's /metrics.
#pragma once

#include <cstdint>
#include <vector>

namespace capstan::sim {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);

  void observe(double value);

  const std::vector<double>& upper_bounds() const { return bounds_; }
  // Non-cumulative count per bucket; the last entry is the +Inf bucket.
  const std::vector<std::uint64_t>& bucket_counts() const { return counts_; }
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

std::vector<double> vllm_ttft_buckets_s();
std::vector<double> vllm_tpot_buckets_s();
std::vector<double> vllm_e2e_buckets_s();
std::vector<double> vllm_token_count_buckets(int max_tokens);

}  // namespace capstan::sim
