// What a run of the simulator takes from its fleets for the policies: the settings
// themselves (PolicySettings and policy_config()) are the domain's
// (domain/tick/policy_settings.hpp), shared with the daemon's configuration.
#pragma once

#include <span>

#include "domain/tick/policy_settings.hpp"
#include "sim/fleet_config.hpp"

namespace capstan::sim {

using capstan::PolicySettings;
using capstan::policy_config;

// What an operator configures as its gateway's timeout: the longest of the fleets'.
double longest_client_timeout_s(std::span<const FleetConfig> fleets);

// The HPA target the operator set in a fleet (the first fleet that sets one), or `fallback`.
double fleet_hpa_target(std::span<const FleetConfig> fleets, double fallback);

}  // namespace capstan::sim
