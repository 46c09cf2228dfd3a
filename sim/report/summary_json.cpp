// The --json document of `capstan simulate`; see summary_json.hpp.
#include "sim/report/summary_json.hpp"

#include <algorithm>

namespace capstan::sim {

namespace {

nlohmann::json counts_json(const std::vector<std::string>& variants, const std::vector<int>& counts) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < variants.size() && i < counts.size(); ++i) out[variants[i]] = counts[i];
  return out;
}

nlohmann::json choice_json(const std::vector<std::string>& variants, const StaticChoice& c) {
  return {{"replicas", counts_json(variants, c.replicas)},
          {"meets", c.meets},
          {"attainment", c.attainment},
          {"gpu_hours", c.gpu_hours},
          {"cost", c.cost}};
}

}  // namespace

nlohmann::json gpu_hours_vs_oracle(const RunReport& report, const Yardsticks& y) {
  if (!y.oracle || !y.oracle->feasible || !(y.oracle->gpu_hours > 0)) return nullptr;
  return report.gpu_hours / y.oracle->gpu_hours;
}

nlohmann::json gpu_hours_vs_static(const RunReport& report, const Yardsticks& y) {
  if (!y.static_fleet || !(y.static_fleet->best.gpu_hours > 0)) return nullptr;
  return report.gpu_hours / y.static_fleet->best.gpu_hours;
}

nlohmann::json fleet_oracle_json(const FleetOracle& o) {
  double lowest = o.attainment_target;  // over the windows above the fleet's capacity
  for (const auto& w : o.windows)
    if (w.over_capacity) lowest = std::min(lowest, w.reachable_attainment);
  nlohmann::json peak = nlohmann::json::object();
  for (std::size_t i = 0; i < o.variants.size(); ++i) {
    int most = 0;
    for (const auto& w : o.windows) most = std::max(most, w.replicas[i]);
    peak[o.variants[i]] = most;
  }
  return {{"method", "fleet"},
          {"attainment_target", o.attainment_target},
          {"gpu_hours", o.feasible ? nlohmann::json(o.gpu_hours) : nlohmann::json(nullptr)},
          {"startup_gpu_hours", o.startup_gpu_hours},
          {"cost", o.feasible ? nlohmann::json(o.cost) : nlohmann::json(nullptr)},
          {"window_s", o.window_s},
          {"windows", o.windows.size()},
          {"windows_over_capacity", o.windows_over_capacity},
          {"lowest_reachable_attainment", lowest},
          {"windows_pooled", o.windows_pooled},
          {"peak_replicas", peak},
          {"probes", o.probes},
          {"feasible", o.feasible}};
}

nlohmann::json static_fleet_json(const StaticFleet& s) {
  nlohmann::json alone = nlohmann::json::object();
  for (std::size_t i = 0; i < s.variants.size() && i < s.alone.size(); ++i)
    alone[s.variants[i]] = s.alone[i] ? choice_json(s.variants, *s.alone[i]) : nlohmann::json(nullptr);
  return {{"attainment_target", s.attainment_target},
          {"reachable_attainment", s.reachable_attainment},
          {"best", choice_json(s.variants, s.best)},
          {"from_start", choice_json(s.variants, s.from_start.value_or(s.best))},
          {"alone", alone},
          {"probes", s.probes}};
}

nlohmann::json estimate_json(const Oracle& oracle) {
  nlohmann::json sustainable = nlohmann::json::object(), unloaded = nlohmann::json::object();
  for (std::size_t i = 0; i < oracle.variants.size(); ++i) {
    sustainable[oracle.variants[i]] = oracle.sustainable[i].rate_rps;
    unloaded[oracle.variants[i]] = oracle.sustainable[i].unloaded_attainment;
  }
  return {{"method", "per-replica estimate (not a bound)"},
          {"attainment_target", oracle.attainment_target},
          {"gpu_hours", oracle.feasible ? nlohmann::json(oracle.gpu_hours) : nlohmann::json(nullptr)},
          {"startup_gpu_hours", oracle.startup_gpu_hours},
          {"cost", oracle.feasible ? nlohmann::json(oracle.cost) : nlohmann::json(nullptr)},
          {"window_s", oracle.window_s},
          {"windows", oracle.windows.size()},
          {"windows_over_capacity", oracle.windows_over_capacity},
          {"sustainable_rps_per_replica", sustainable},
          {"unloaded_attainment", unloaded},
          {"feasible", oracle.feasible}};
}

nlohmann::json policy_row_json(const PolicyRun& run, const Yardsticks& y) {
  const RunReport& r = run.report;
  return {{"policy", run.policy},
          {"requests", r.requests},
          {"completed", r.completed},
          {"slo_attainment", r.slo_attainment},
          {"failed", r.failed},
          {"ttft_p50_ms", r.ttft_p50_ms},
          {"ttft_p99_ms", r.ttft_p99_ms},
          {"itl_p50_ms", r.itl_p50_ms},
          {"itl_p99_ms", r.itl_p99_ms},
          {"gpu_hours", r.gpu_hours},
          {"cost", r.cost},
          {"scale_actions", r.scale_actions.size()},
          {"gpu_hours_vs_oracle", gpu_hours_vs_oracle(r, y)},
          {"vs_static", gpu_hours_vs_static(r, y)},
          {"preemptions", r.preemptions},
          {"duration_s", r.duration_s},
          {"error", run.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.error)}};
}

nlohmann::json summary_json(const std::string& trace, const std::string& fleet, const SloTargets& slo,
                            const Yardsticks& y, const std::vector<PolicyRun>& runs) {
  nlohmann::json policies = nlohmann::json::array();
  for (const auto& run : runs) policies.push_back(policy_row_json(run, y));
  return {{"trace", trace},
          {"fleet", fleet},
          {"slo", {{"ttft_ms", slo.ttft_ms}, {"itl_ms", slo.itl_ms}}},
          {"oracle", y.oracle ? fleet_oracle_json(*y.oracle) : nlohmann::json(nullptr)},
          {"static_fleet", y.static_fleet ? static_fleet_json(*y.static_fleet) : nlohmann::json(nullptr)},
          {"per_replica_estimate", y.estimate ? estimate_json(*y.estimate) : nlohmann::json(nullptr)},
          {"policies", policies}};
}

}  // namespace capstan::sim
