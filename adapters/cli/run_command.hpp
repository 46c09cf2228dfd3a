// `capstan run`: the daemon (actors/daemon.hpp) with its configuration's layers
// (config/), on the embedded simulated fleet (adapters/fleet/simulated_fleet.hpp) until
// Prometheus and Kubernetes arrive in their own issue. With nothing configured it runs
// the demo in ops/examples/capstan.yaml: the shipped trace on the example fleet, its
// virtual time sped up so that a scale-up shows within the first minute. One line per
// changed target, with its reason, until Ctrl-C or SIGTERM (the tick in flight finishes
// and is made durable; exit 0).
#pragma once

#include <span>

#include <CLI/CLI.hpp>

#include "actors/messages.hpp"
#include "config/daemon_config.hpp"
#include "sim/fleet_config.hpp"

namespace capstan::cli {

// The configuration the actors run under, from the layers; the sim fleets supply what
// an operator knows of the serving side (its gateway's timeout, its HPA's target) when
// the configuration does not say, as `simulate` takes them from the fleet. `replay
// what-if` builds its configuration with it too, so the same file gives the same one.
actors::ConfigUpdate to_update(const config::EffectiveConfig& effective, std::span<const sim::FleetConfig> fleets);

void add_run_command(CLI::App& app, int& status);

}  // namespace capstan::cli
