// Scenario checks over a whole run: SLO attainment, tail TTFT, GPU-hours (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <cmath>

namespace capstan::sim::checks {
namespace {

double slo_attainment(const CheckSpec& spec, const CheckContext& c) { return report_of(spec, c).slo_attainment; }
double ttft_p99_ms(const CheckSpec& spec, const CheckContext& c) { return report_of(spec, c).ttft_p99_ms; }

double gpu_hours_vs_oracle(const CheckSpec&, const CheckContext& c) {
  if (!c.oracle_gpu_hours || !(*c.oracle_gpu_hours > 0)) return kNaN;
  return c.run.report.gpu_hours / *c.oracle_gpu_hours;
}

}  // namespace

std::vector<Entry> overall_checks() {
  return {
      {{"slo_attainment", Bound::kAtLeast, {}, {"model"},
        "share of finished requests within both SLO targets (of model `model` when given)"}, slo_attainment},
      {{"ttft_p99_ms", Bound::kAtMost, {}, {"model"}, "p99 TTFT over the run, ms (of model `model` when given)"},
       ttft_p99_ms},
      {{"gpu_hours_vs_oracle", Bound::kAtMost, {}, {}, "GPU-hours over the offline oracle's", false, true},
       gpu_hours_vs_oracle},
  };
}

}  // namespace capstan::sim::checks
