// Scenario checks for bursts and slow starts (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace capstan::sim::checks {
namespace {

// Seconds after at_s until the requests arriving in every later tick window before
// until_s got their first token within the TTFT target: none failed or left unfinished,
// p99 <= SLO. Read by arrival, not by completion: a request queued at a replica during
// the cold start stays there until that replica serves it, so what finishes in the
// ticks after the new replicas are ready says how deep the backlog was, not whether a
// client sending now is served within the SLO.
double ttft_recovery_s(const CheckSpec& spec, const CheckContext& c) {
  const double at_s = spec.params.at("at_s"), until_s = spec.params.at("until_s");
  double recovered = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s <= at_s || t.time_s > until_s) continue;
    const bool good =
        t.arrived_failed == 0 && t.arrived_unfinished == 0 && t.arrived_ttft_p99_ms <= c.scenario.slo.ttft_ms;
    if (!good) recovered = kNaN;
    else if (std::isnan(recovered)) recovered = t.time_s - at_s;
  }
  return recovered;
}

// Ticks from the first tick in [from_s, to_s) at which at least min_queued requests
// wait (router and server queues, as the fleet holds them) to the first tick, from
// then on, at which a decision asks for more replicas than the variant holds; +inf when
// none does before to_s. 0 when the policy asks at the tick it first sees the queue.
// NaN (not measurable, fails) when no queue forms: the scenario did not test anything.
double queue_response_ticks(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  const double min_queued = param(spec, "min_queued", 1);
  std::optional<double> queued_at;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < from_s || t.time_s >= to_s) continue;
    if (!queued_at && static_cast<double>(t.queued) >= min_queued) queued_at = t.time_s;
    if (!queued_at) continue;
    if (std::any_of(t.decisions.begin(), t.decisions.end(),
                    [](const Decision& d) { return d.target_replicas > d.current_replicas; }))
      return (t.time_s - *queued_at) / c.scenario.tick_s;
  }
  return queued_at ? kInf : kNaN;
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

// How far the demand forecasts were from the demand that came one start-up later: for
// each forecast a policy made (its ForecastMade events) at a tick in [from_s, to_s), the
// relative error |forecast - realised| / realised, where realised is the arrival rate
// averaged over smooth_ticks ticks from the tick at which a replica started then would
// be ready (the slowest variant's pending + cold start: what the fleet realises). The
// median over the forecasts. Read from the events' fields, not from any text; a policy
// that makes no forecast is not measurable (NaN, fails).
double forecast_error(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = param(spec, "from_s", 0), to_s = param(spec, "to_s", kInf);
  const auto smooth = static_cast<std::size_t>(std::max(1.0, param(spec, "smooth_ticks", 5)));
  double startup_s = 0;
  for (const VariantConfig* v : run_variants(c)) startup_s = std::max(startup_s, v->pending_s + v->cold_start_s);
  const auto& series = c.run.series;
  std::vector<double> errors;
  for (const TickRecord& t : series) {
    if (t.time_s < from_s || t.time_s >= to_s) continue;
    const double at_s = t.time_s + startup_s;
    auto first = std::find_if(series.begin(), series.end(), [&](const TickRecord& r) { return r.time_s >= at_s; });
    if (first == series.end() || static_cast<std::size_t>(series.end() - first) < smooth) continue;
    double sum = 0;
    for (std::size_t k = 0; k < smooth; ++k) sum += (first + static_cast<std::ptrdiff_t>(k))->arrival_rate_rps;
    const double realised = sum / static_cast<double>(smooth);
    if (!(realised > 0)) continue;
    for (const ForecastMade& f : t.forecasts) errors.push_back(std::abs(f.rate_rps - realised) / realised);
  }
  if (errors.empty()) return kNaN;
  std::sort(errors.begin(), errors.end());
  return errors[(errors.size() - 1) / 2];
}

// Most replicas held at once over the most the oracle's plan needs at its peak.
double peak_replicas_vs_oracle(const CheckSpec&, const CheckContext& c) {
  if (!c.oracle_peak_replicas || *c.oracle_peak_replicas <= 0) return kNaN;
  int most = 0;
  for (const TickRecord& t : c.run.series) most = std::max(most, total(t.replicas));
  return static_cast<double>(most) / *c.oracle_peak_replicas;
}

// How long before each tick of [from_s, to_s) the fleet's targets already held, without
// a break, the capacity that tick's demand needed: the median over the ticks, negative
// when the targets caught up only after. Capacity is each variant's target x one
// replica's sustainable rate (the oracle's); demand the arrival rate averaged over
// smooth_ticks ticks around the tick. A policy that only reacts leads by at most a
// tick; one whose forecast looks one start-up ahead leads by about a start-up, and its
// replicas are ready when the demand comes.
double ramp_lead_s(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  const auto half = static_cast<std::size_t>(std::max(0.0, (param(spec, "smooth_ticks", 5) - 1) / 2));
  const auto variants = run_variants(c);
  if (c.sustainable_rps.size() != variants.size()) return kNaN;
  const auto& series = c.run.series;
  std::vector<double> capacity, demand;
  for (const TickRecord& t : series) {
    const std::vector<int> targets = targets_after(t, c, variants);
    double cap = 0;
    for (std::size_t i = 0; i < targets.size() && i < variants.size(); ++i) cap += targets[i] * c.sustainable_rps[i];
    capacity.push_back(cap);
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    const std::size_t lo = k >= half ? k - half : 0, hi = std::min(series.size() - 1, k + half);
    double sum = 0;
    for (std::size_t j = lo; j <= hi; ++j) sum += series[j].arrival_rate_rps;
    demand.push_back(sum / static_cast<double>(hi - lo + 1));
  }
  std::vector<double> leads;
  for (std::size_t k = 0; k < series.size(); ++k) {
    if (series[k].time_s < from_s || series[k].time_s >= to_s) continue;
    if (capacity[k] >= demand[k]) {
      std::size_t j = k;
      while (j > 0 && capacity[j - 1] >= demand[k]) --j;
      leads.push_back(series[k].time_s - series[j].time_s);
    } else {
      std::size_t j = k;
      while (j < series.size() && capacity[j] < demand[k]) ++j;
      const double caught_up = j < series.size() ? series[j].time_s : series.back().time_s + c.scenario.tick_s;
      leads.push_back(series[k].time_s - caught_up);
    }
  }
  if (leads.empty()) return kNaN;
  std::sort(leads.begin(), leads.end());
  return leads[leads.size() / 2];
}

}  // namespace

std::vector<Entry> latency_checks() {
  return {
      {{"ttft_recovery_s", Bound::kAtMost, {"at_s", "until_s"}, {},
        "s after at_s until the requests arriving in every tick window before until_s have p99 TTFT within the SLO, none failed"},
       ttft_recovery_s},
      {{"queue_response_ticks", Bound::kAtMost, {"from_s", "to_s"}, {"min_queued"},
        "ticks from the first queue of min_queued requests in [from_s, to_s) to the first decision asking for more "
        "replicas"}, queue_response_ticks},
      {{"scale_ups_while_loading", Bound::kAtMost, {}, {"from_s", "to_s"},
        "scale-ups decided while the variant had replicas pending or loading"}, scale_ups_while_loading},
      {{"peak_replicas_vs_oracle", Bound::kAtMost, {}, {},
        "most replicas held at once over the most the offline oracle needs", false, true}, peak_replicas_vs_oracle},
      {{"ramp_lead_s", Bound::kAtLeast, {"from_s", "to_s"}, {"smooth_ticks"},
        "median s by which the targets' sustainable capacity led each tick's demand in [from_s, to_s)", false, false,
        true},
       ramp_lead_s},
      {{"forecast_error", Bound::kAtMost, {}, {"from_s", "to_s", "smooth_ticks"},
        "median |forecast - rate realised one start-up later| / realised, over the forecasts made in [from_s, to_s)"},
       forecast_error},
  };
}

}  // namespace capstan::sim::checks
