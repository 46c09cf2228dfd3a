// Cumulative histogram and vLLM's bucket layouts; see histogram.hpp.
#include "sim/histogram.hpp"

#include <algorithm>

namespace capstan::sim {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
  ++count_;
  sum_ += value;
}

std::vector<double> vllm_ttft_buckets_s() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25, 0.5,   0.75,
          1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
}

std::vector<double> vllm_tpot_buckets_s() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
          0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
}

std::vector<double> vllm_e2e_buckets_s() {
  return {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
          120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
}

std::vector<double> vllm_token_count_buckets(int max_tokens) {
  // vLLM's 1-2-5 series up to the model length.
  std::vector<double> out;
  for (double decade = 1; decade <= max_tokens; decade *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * decade <= max_tokens) out.push_back(m * decade);
  return out;
}

}  // namespace capstan::sim
