// The machine-readable result of `capstan simulate` (its --json file), one place for
// the field names acceptance checks read, so the table, the JSON and the HTML report
// agree:
//   {"trace", "fleet", "slo": {"ttft_ms", "itl_ms"},
//    "oracle": {"gpu_hours", "startup_gpu_hours", "cost", "method": "fleet", ...},
//    "static_fleet": {"best": {"replicas": {variant: n}, "gpu_hours", "cost", "attainment", "meets"},
//                     "alone": {variant: {...} or null}, ...},
//    "per_replica_estimate": {"gpu_hours", "sustainable_rps_per_replica", ...},  (not a bound)
//    "policies": [{"policy", "requests", "slo_attainment", "failed", "ttft_p50_ms",
//                  "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "gpu_hours", "cost",
//                  "scale_actions", "gpu_hours_vs_oracle", "vs_static", "error", ...}, ...]}
// Nothing time-of-day or wall-clock goes in: the same seed gives the same bytes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fleet_oracle.hpp"
#include "sim/harness.hpp"
#include "sim/oracle.hpp"
#include "sim/static_fleet.hpp"

namespace capstan::sim {

// What every policy is measured against; each part is optional (null in the JSON).
struct Yardsticks {
  std::optional<FleetOracle> oracle;        // the fleet-level lower bound (fleet_oracle.hpp)
  std::optional<StaticFleet> static_fleet;  // the cheapest fleet that never scales (static_fleet.hpp)
  std::optional<Oracle> estimate;           // the fast per-replica estimate (oracle.hpp): not a bound
};

// Policy GPU-hours over the oracle's; null when there is no oracle figure.
nlohmann::json gpu_hours_vs_oracle(const RunReport& report, const Yardsticks& yardsticks);
// Policy GPU-hours over the best static fleet's (the one reaching the most a fixed fleet
// can when none meets the target: read it with static_fleet.best.meets); null without one.
nlohmann::json gpu_hours_vs_static(const RunReport& report, const Yardsticks& yardsticks);

nlohmann::json fleet_oracle_json(const FleetOracle& oracle);
nlohmann::json static_fleet_json(const StaticFleet& fleet);
nlohmann::json estimate_json(const Oracle& estimate);
nlohmann::json policy_row_json(const PolicyRun& run, const Yardsticks& yardsticks);
nlohmann::json summary_json(const std::string& trace, const std::string& fleet, const SloTargets& slo,
                            const Yardsticks& yardsticks, const std::vector<PolicyRun>& runs);

}  // namespace capstan::sim
