#include "domain/stages/metric_guard.hpp"

#include <algorithm>
#include <cmath>


namespace capstan {
namespace {

bool bad(double v) { return !std::isfinite(v) || v < 0; }

}  // namespace

double max_sample_age_s(double interval_s) { return 2 * interval_s; }

std::optional<Reason> unusable_metrics(const VariantState& v) { return unusable_metrics(v, 0); }

std::optional<Reason> unusable_metrics(const VariantState& v, double max_age_s) {
  const int ready = ready_replicas(v);
  int reported = 0;
  double newest_s = 0;
  for (const PodMetrics& p : v.pods) {
    if (!p.ready) continue;
    for (double value : {p.arrival_rate_rps, p.avg_ttft_ms, p.avg_itl_ms, p.avg_input_tokens,
                         p.avg_output_tokens, p.kv_usage, p.queue_length, p.running, p.sample_age_s}) {
      if (bad(value)) return make_reason(ReasonCode::kMetricsMissing, "guard.invalid_value", {{"pod", p.pod}});
    }
    newest_s = reported == 0 ? p.sample_age_s : std::min(newest_s, p.sample_age_s);
    ++reported;
  }
  if (ready > 0 && reported == 0) {
    return make_reason(ReasonCode::kMetricsMissing, "guard.none_reported", {{"ready", ready}});
  }
  if (reported > 0 && std::isfinite(max_age_s) && max_age_s > 0 && newest_s > max_age_s) {
    return make_reason(ReasonCode::kMetricsMissing, "guard.stale", {{"newest_s", newest_s}, {"max_age_s", max_age_s}});
  }
  return std::nullopt;
}

ScalingRequest hold_last_good(const VariantState& v, std::optional<int> last_good_target, Reason why) {
  const int target = std::max(v.current_replicas, last_good_target.value_or(v.current_replicas));
  return {v.spec.name, v.current_replicas, target,
          make_reason(ReasonCode::kMetricsMissing, "guard.hold_last_good",
                      {{"current", v.current_replicas}, {"target", target}}, {std::move(why)})};
}

}  // namespace capstan
