// PolicySettings -> PolicyConfig; see policy_settings.hpp.
#include "sim/policy_settings.hpp"

#include <algorithm>

namespace capstan::sim {

double longest_client_timeout_s(std::span<const FleetConfig> fleets) {
  double longest = 0;
  for (const FleetConfig& fleet : fleets) longest = std::max(longest, fleet.client_timeout_s);
  return longest;
}

double fleet_hpa_target(std::span<const FleetConfig> fleets, double fallback) {
  for (const FleetConfig& fleet : fleets) {
    if (fleet.hpa_target_per_replica > 0) return fleet.hpa_target_per_replica;
  }
  return fallback;
}

PolicyConfig policy_config(const PolicySettings& s) {
  PolicyConfig c;
  c.slo = s.slo;
  c.tail_probability = 1 - s.slo_attainment;  // the share of requests the SLO may miss
  c.client_timeout_s = s.client_timeout_s;
  c.scale_down_cooldown_s = s.scale_down_cooldown_s;
  c.scale_to_zero_retention_s = s.scale_to_zero_retention_s;
  c.gpu_budget = s.gpu_budget;
  c.pd_band = s.pd_band;
  c.max_step_up = s.max_step_up;
  c.max_step_down = s.max_step_down;
  c.target_concurrency_per_replica = s.hpa_target_per_replica;
  return c;
}

}  // namespace capstan::sim
