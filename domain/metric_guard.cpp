#include "domain/metric_guard.hpp"

#include <algorithm>
#include <cmath>

namespace capstan {
namespace {

bool bad(double v) { return !std::isfinite(v) || v < 0; }

}  // namespace

std::optional<std::string> unusable_metrics(const VariantState& v) {
  const int ready = ready_replicas(v);
  int reported = 0;
  for (const PodMetrics& p : v.pods) {
    if (!p.ready) continue;
    ++reported;
    for (double value : {p.arrival_rate_rps, p.avg_ttft_ms, p.avg_itl_ms, p.avg_input_tokens,
                         p.avg_output_tokens, p.kv_usage, p.queue_length, p.running}) {
      if (bad(value)) return "pod " + p.pod + " reported an invalid value";
    }
  }
  if (ready > 0 && reported == 0) {
    return std::to_string(ready) + " ready replica(s) but no pod reported metrics";
  }
  return std::nullopt;
}

ScalingRequest hold_last_good(const VariantState& v, std::optional<int> last_good_target,
                              const std::string& why) {
  const int target = std::max(v.current_replicas, last_good_target.value_or(v.current_replicas));
  return {v.spec.name, v.current_replicas, target,
          Reason{ReasonCode::kMetricsMissing,
                 "hold at " + std::to_string(target) + ": " + why + "; keeping the last good target"}};
}

}  // namespace capstan
