// Run report from request outcomes and fleet accounting; see run_report.hpp.
#include "sim/run_report.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

void fill_outcomes(RunReport& r, const OutcomeStats& outcomes) {
  r.completed = outcomes.completed();
  r.failed = outcomes.failed();
  r.ttft_p50_ms = outcomes.ttft_ms().percentile(50);
  r.ttft_p99_ms = outcomes.ttft_ms().percentile(99);
  r.itl_p50_ms = outcomes.itl_ms().percentile(50);
  r.itl_p99_ms = outcomes.itl_ms().percentile(99);
  r.e2e_mean_s = r.completed > 0 ? outcomes.e2e_sum_s() / static_cast<double>(r.completed) : 0;
  const long long finished = r.completed + r.failed;
  r.slo_attainment =
      finished > 0 ? static_cast<double>(outcomes.met_slo()) / static_cast<double>(finished) : 0;
}

RunReport make_run_report(const OutcomeStats& outcomes, long long arrived, const Fleet& fleet,
                          double now_s) {
  RunReport r;
  r.duration_s = now_s;
  r.requests = arrived;
  fill_outcomes(r, outcomes);
  r.in_flight = arrived - r.completed - r.failed;
  r.replica_hours = fleet.replica_seconds(now_s) / 3600.0;
  r.gpu_hours = fleet.gpu_seconds(now_s) / 3600.0;
  r.cost = fleet.cost(now_s);
  for (const auto& rep : fleet.replicas())
    r.preemptions += static_cast<long long>(rep->server().metrics().num_preemptions_total);
  r.scale_actions = fleet.scale_actions();
  return r;
}

}  // namespace capstan::sim
