#include "domain/core/workload.hpp"

#include <algorithm>
#include <cmath>

namespace capstan {
namespace {

bool usable(const PodMetrics& pod) {
  return std::isfinite(pod.arrival_rate_rps) && pod.arrival_rate_rps > 0 &&
         std::isfinite(pod.avg_ttft_ms) && std::isfinite(pod.avg_itl_ms) &&
         std::isfinite(pod.avg_input_tokens) && std::isfinite(pod.avg_output_tokens);
}

template <class Keep>
VariantWorkload aggregate_if(std::span<const PodMetrics> pods, Keep keep) {
  VariantWorkload w;
  double in = 0, out = 0, ttft = 0, itl = 0, running = 0;
  for (const PodMetrics& pod : pods) {
    if (!usable(pod) || !keep(pod)) continue;
    const double r = pod.arrival_rate_rps;
    w.total_arrival_rps += r;
    in += r * pod.avg_input_tokens;
    out += r * pod.avg_output_tokens;
    ttft += r * pod.avg_ttft_ms;
    itl += r * pod.avg_itl_ms;
    if (std::isfinite(pod.running)) running += std::max(0.0, pod.running);
    ++w.busy_pods;
  }
  if (w.busy_pods > 0) {
    w.avg_input_tokens = in / w.total_arrival_rps;
    w.avg_output_tokens = out / w.total_arrival_rps;
    w.avg_ttft_ms = ttft / w.total_arrival_rps;
    w.avg_itl_ms = itl / w.total_arrival_rps;
    w.avg_running = running / w.busy_pods;
  }
  return w;
}

}  // namespace

VariantWorkload aggregate(std::span<const PodMetrics> pods) {
  return aggregate_if(pods, [](const PodMetrics&) { return true; });
}

VariantWorkload aggregate_for_tuning(std::span<const PodMetrics> pods, double transient_delay_s) {
  return aggregate_if(pods, [transient_delay_s](const PodMetrics& pod) {
    return pod.seconds_since_start >= transient_delay_s;
  });
}

}  // namespace capstan
