// Scenario checks for missing, invalid and stale metrics (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace capstan::sim::checks {
namespace {

// Most replicas a decision inside the gap went below the variant's last target before it.
double below_last_good(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  std::map<std::size_t, int> last_good;  // by run variant index
  double worst = 0;
  for (const TickRecord& t : c.run.series) {
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (t.time_s < from_s) last_good[i] = d.target_replicas;
      else if (t.time_s < to_s && last_good.count(i))
        worst = std::max(worst, static_cast<double>(last_good[i] - d.target_replicas));
    }
  }
  return worst;
}

double metrics_missing_decisions(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  double count = 0;
  for (const TickRecord& t : c.run.series)
    if (t.time_s >= from_s && t.time_s < to_s)
      for (const Decision& d : t.decisions) count += d.reason.code == ReasonCode::kMetricsMissing ? 1 : 0;
  return count;
}

// Ticks after at_s until a tick whose decisions no longer say metrics_missing.
double resume_ticks(const CheckSpec& spec, const CheckContext& c) {
  const double at_s = spec.params.at("at_s");
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < at_s || t.decisions.empty()) continue;
    if (std::none_of(t.decisions.begin(), t.decisions.end(),
                     [](const Decision& d) { return d.reason.code == ReasonCode::kMetricsMissing; }))
      return std::round((t.time_s - at_s) / c.scenario.tick_s);
  }
  return kNaN;
}

}  // namespace

std::vector<Entry> metric_gap_checks() {
  return {
      {{"below_last_good", Bound::kAtMost, {"from_s", "to_s"}, {},
        "most replicas a decision in the gap is below the variant's last target before it"}, below_last_good},
      {{"metrics_missing_decisions", Bound::kAtLeast, {"from_s", "to_s"}, {},
        "decisions with reason code metrics_missing in [from_s, to_s)"}, metrics_missing_decisions},
      {{"resume_ticks", Bound::kAtMost, {"at_s"}, {},
        "ticks after at_s until no decision says metrics_missing"}, resume_ticks},
  };
}

}  // namespace capstan::sim::checks
