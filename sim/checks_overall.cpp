// Scenario checks over a whole run: SLO attainment, tail TTFT, GPU-hours (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <cmath>

namespace capstan::sim::checks {
namespace {

// With from_s, the share of the requests arriving from then on (in tick windows that
// start at or after it) that finished within both targets, failed and unfinished ones
// counting as missed: what the SLO is once a policy could have sized the fleet, where
// a fresh start under load leaves a backlog no policy can serve in time (cold-fleet).
double slo_attainment(const CheckSpec& spec, const CheckContext& c) {
  if (!spec.params.count("from_s")) return report_of(spec, c).slo_attainment;
  const double from_s = spec.params.at("from_s");
  long long arrived = 0, met = 0;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s - c.scenario.tick_s < from_s) continue;
    arrived += t.arrived;
    met += t.arrived_met_slo;
  }
  return arrived > 0 ? static_cast<double>(met) / static_cast<double>(arrived) : kNaN;
}
double ttft_p99_ms(const CheckSpec& spec, const CheckContext& c) { return report_of(spec, c).ttft_p99_ms; }

double gpu_hours_vs_oracle(const CheckSpec&, const CheckContext& c) {
  if (!c.oracle_gpu_hours || !(*c.oracle_gpu_hours > 0)) return kNaN;
  return c.run.report.gpu_hours / *c.oracle_gpu_hours;
}

}  // namespace

std::vector<Entry> overall_checks() {
  return {
      {{"slo_attainment", Bound::kAtLeast, {}, {"model", "from_s"},
        "share of finished requests within both SLO targets (of model `model` when given); with from_s, of "
        "the requests of every model arriving from then on, unfinished ones missed"}, slo_attainment},
      {{"ttft_p99_ms", Bound::kAtMost, {}, {"model"}, "p99 TTFT over the run, ms (of model `model` when given)"},
       ttft_p99_ms},
      {{"gpu_hours_vs_oracle", Bound::kAtMost, {}, {}, "GPU-hours over the offline oracle's", false, true},
       gpu_hours_vs_oracle},
  };
}

}  // namespace capstan::sim::checks
