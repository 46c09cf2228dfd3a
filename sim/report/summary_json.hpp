// The machine-readable result of `capstan simulate` (its --json file), one place for
// the field names acceptance checks read, so the table, the JSON and the HTML report
// agree:
//   {"trace", "fleet", "slo": {"ttft_ms", "itl_ms"}, "oracle": {"gpu_hours", ...},
//    "policies": [{"policy", "requests", "slo_attainment", "failed", "ttft_p50_ms",
//                  "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "gpu_hours", "cost",
//                  "scale_actions", "gpu_hours_vs_oracle", "error", ...}, ...]}
// Nothing time-of-day or wall-clock goes in: the same seed gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/harness.hpp"
#include "sim/oracle.hpp"

namespace capstan::sim {

// Policy GPU-hours over the oracle's; null when the oracle has none (infeasible SLO
// or an empty trace).
nlohmann::json gpu_hours_vs_oracle(const RunReport& report, const Oracle& oracle);

nlohmann::json oracle_json(const Oracle& oracle);
nlohmann::json policy_row_json(const PolicyRun& run, const Oracle& oracle);
nlohmann::json summary_json(const std::string& trace, const std::string& fleet, const SloTargets& slo,
                            const Oracle& oracle, const std::vector<PolicyRun>& runs);

}  // namespace capstan::sim
