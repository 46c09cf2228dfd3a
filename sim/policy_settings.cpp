// What the simulator takes from its fleets for the policies; see policy_settings.hpp.
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

}  // namespace capstan::sim
