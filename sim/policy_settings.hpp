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

// Which of the settings a fleet can decide were set by the operator instead.
struct SetByOperator {
  bool client_timeout = false;
  bool hpa_target = false;
};

// `settings` with what the simulated fleets decide, where the operator did not: the
// gateway's timeout (the longest of the fleets', as an operator configures its gateway)
// and the HPA's target per replica (the first fleet's that sets one, else the setting's
// own default). `simulate`, `scenarios`, `capstan run` on the simulated fleet and the
// tests all take them from here.
PolicySettings with_fleet_settings(PolicySettings settings, std::span<const FleetConfig> fleets,
                                   SetByOperator set = {});

}  // namespace capstan::sim
