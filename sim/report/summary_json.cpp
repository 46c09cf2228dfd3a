// The --json document of `capstan simulate`; see summary_json.hpp.
#include "sim/report/summary_json.hpp"

namespace capstan::sim {

nlohmann::json gpu_hours_vs_oracle(const RunReport& report, const Oracle& oracle) {
  if (!oracle.feasible || !(oracle.gpu_hours > 0)) return nullptr;
  return report.gpu_hours / oracle.gpu_hours;
}

nlohmann::json oracle_json(const Oracle& oracle) {
  nlohmann::json sustainable = nlohmann::json::object(), unloaded = nlohmann::json::object();
  for (std::size_t i = 0; i < oracle.variants.size(); ++i) {
    sustainable[oracle.variants[i]] = oracle.sustainable[i].rate_rps;
    unloaded[oracle.variants[i]] = oracle.sustainable[i].unloaded_attainment;
  }
  return {{"attainment_target", oracle.attainment_target},
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

nlohmann::json policy_row_json(const PolicyRun& run, const Oracle& oracle) {
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
          {"gpu_hours_vs_oracle", gpu_hours_vs_oracle(r, oracle)},
          {"preemptions", r.preemptions},
          {"duration_s", r.duration_s},
          {"error", run.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.error)}};
}

nlohmann::json summary_json(const std::string& trace, const std::string& fleet, const SloTargets& slo,
                            const Oracle& oracle, const std::vector<PolicyRun>& runs) {
  nlohmann::json policies = nlohmann::json::array();
  for (const auto& run : runs) policies.push_back(policy_row_json(run, oracle));
  return {{"trace", trace},
          {"fleet", fleet},
          {"slo", {{"ttft_ms", slo.ttft_ms}, {"itl_ms", slo.itl_ms}}},
          {"oracle", oracle_json(oracle)},
          {"policies", policies}};
}

}  // namespace capstan::sim
