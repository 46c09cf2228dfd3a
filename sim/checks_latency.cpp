// Scenario checks for bursts and slow starts (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim::checks {
namespace {

// Seconds after at_s until every later tick before until_s finished its requests
// within the TTFT target: none failed, some completed if any arrived, p99 <= SLO.
double ttft_recovery_s(const CheckSpec& spec, const CheckContext& c) {
  const double at_s = spec.params.at("at_s"), until_s = spec.params.at("until_s");
  double recovered = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s <= at_s || t.time_s > until_s) continue;
    const bool good = t.failed == 0 && (t.completed > 0 || t.arrival_rate_rps == 0) &&
                      t.ttft_p99_ms <= c.scenario.slo.ttft_ms;
    if (!good) recovered = kNaN;
    else if (std::isnan(recovered)) recovered = t.time_s - at_s;
  }
  return recovered;
}

double observed_queueing_ticks(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  double ticks = 0;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < from_s || t.time_s >= to_s) continue;
    if (std::any_of(t.decisions.begin(), t.decisions.end(), [](const Decision& d) {
          auto ms = observed_queueing_ms(d.reason.text);
          return ms && *ms > 0;
        }))
      ++ticks;
  }
  return ticks;
}

// Scale-ups decided while the variant already had replicas starting (pending/loading).
double scale_ups_while_loading(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = param(spec, "from_s", 0), to_s = param(spec, "to_s", kInf);
  double count = 0;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < from_s || t.time_s >= to_s) continue;
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (i >= t.replicas.size() || d.target_replicas <= d.current_replicas) continue;
      if (t.replicas[i] > t.ready[i]) ++count;
    }
  }
  return count;
}

// Largest relative gap between the horizon the reasons state and the fleet's start-up
// time (pending + cold start, what the simulator realises) of the slowest variant.
double horizon_error(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = param(spec, "after_s", 0);
  double cold_start_s = 0;
  for (const VariantConfig* v : run_variants(c)) cold_start_s = std::max(cold_start_s, v->pending_s + v->cold_start_s);
  if (!(cold_start_s > 0)) return kNaN;
  double worst = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < after_s) continue;
    for (const Decision& d : t.decisions) {
      auto h = stated_horizon_s(d.reason.text);
      if (!h) continue;
      const double e = std::abs(*h - cold_start_s) / cold_start_s;
      worst = std::isnan(worst) ? e : std::max(worst, e);
    }
  }
  return worst;
}

// Most replicas held at once over the most the oracle's plan needs at its peak.
double peak_replicas_vs_oracle(const CheckSpec&, const CheckContext& c) {
  if (!c.oracle_peak_replicas || *c.oracle_peak_replicas <= 0) return kNaN;
  int most = 0;
  for (const TickRecord& t : c.run.series) most = std::max(most, total(t.replicas));
  return static_cast<double>(most) / *c.oracle_peak_replicas;
}

}  // namespace

std::vector<Entry> latency_checks() {
  return {
      {{"ttft_recovery_s", Bound::kAtMost, {"at_s", "until_s"}, {},
        "s after at_s until every tick before until_s has p99 TTFT within the SLO and no failures"},
       ttft_recovery_s},
      {{"observed_queueing_ticks", Bound::kAtLeast, {"from_s", "to_s"}, {},
        "ticks in [from_s, to_s) whose decision states a non-zero observed queueing"}, observed_queueing_ticks},
      {{"scale_ups_while_loading", Bound::kAtMost, {}, {"from_s", "to_s"},
        "scale-ups decided while the variant had replicas pending or loading"}, scale_ups_while_loading},
      {{"peak_replicas_vs_oracle", Bound::kAtMost, {}, {},
        "most replicas held at once over the most the offline oracle needs", false, true}, peak_replicas_vs_oracle},
      {{"horizon_error", Bound::kAtMost, {}, {"after_s"},
        "largest |stated forecast horizon - measured start-up time| / start-up time"}, horizon_error},
  };
}

}  // namespace capstan::sim::checks
