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

RunReport make_run_report(const std::vector<RequestOutcome>& outcomes, long long arrived,
                          const Fleet& fleet, double now_s, const SloTargets& slo) {
  RunReport r;
  r.duration_s = now_s;
  r.requests = arrived;
  std::vector<double> ttft_ms, itl_ms;
  double e2e_sum = 0;
  long long met = 0;
  for (const auto& o : outcomes) {
    if (o.failed) {
      ++r.failed;
      continue;
    }
    ++r.completed;
    ttft_ms.push_back(o.ttft_s * 1000.0);
    itl_ms.push_back(o.mean_itl_s * 1000.0);
    e2e_sum += o.end_s - o.arrival_s;
    const bool ttft_ok = slo.ttft_ms <= 0 || o.ttft_s * 1000.0 <= slo.ttft_ms;
    const bool itl_ok = slo.itl_ms <= 0 || o.mean_itl_s * 1000.0 <= slo.itl_ms;
    if (ttft_ok && itl_ok) ++met;
  }
  r.in_flight = arrived - r.completed - r.failed;
  r.ttft_p50_ms = percentile(ttft_ms, 50);
  r.ttft_p99_ms = percentile(ttft_ms, 99);
  r.itl_p50_ms = percentile(itl_ms, 50);
  r.itl_p99_ms = percentile(itl_ms, 99);
  r.e2e_mean_s = r.completed > 0 ? e2e_sum / static_cast<double>(r.completed) : 0;
  const long long finished = r.completed + r.failed;
  r.slo_attainment = finished > 0 ? static_cast<double>(met) / static_cast<double>(finished) : 0;
  r.replica_hours = fleet.replica_seconds(now_s) / 3600.0;
  r.gpu_hours = fleet.gpu_seconds(now_s) / 3600.0;
  r.cost = fleet.cost(now_s);
  for (const auto& rep : fleet.replicas())
    r.preemptions += static_cast<long long>(rep->server().metrics().num_preemptions_total);
  r.scale_actions = fleet.scale_actions();
  return r;
}

}  // namespace capstan::sim
