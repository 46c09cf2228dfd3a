// What the simulator takes from its fleets for the policies; see policy_settings.hpp.
#include "sim/policy_settings.hpp"

#include <algorithm>

namespace capstan::sim {

PolicySettings with_fleet_settings(PolicySettings settings, std::span<const FleetConfig> fleets, SetByOperator set) {
  if (!set.client_timeout) {
    settings.client_timeout_s = 0;
    for (const FleetConfig& fleet : fleets) settings.client_timeout_s = std::max(settings.client_timeout_s, fleet.client_timeout_s);
  }
  if (!set.hpa_target) {
    const auto it = std::find_if(fleets.begin(), fleets.end(),
                                 [](const FleetConfig& fleet) { return fleet.hpa_target_per_replica > 0; });
    if (it != fleets.end()) settings.hpa_target_per_replica = it->hpa_target_per_replica;
  }
  return settings;
}

}  // namespace capstan::sim
