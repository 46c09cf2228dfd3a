// `capstan run`: the daemon (actors/daemon.hpp) with its configuration's layers
// (config/), on the embedded simulated fleet (adapters/fleet/simulated_fleet.hpp) until
// Prometheus and Kubernetes arrive in their own issue. With nothing configured it runs
// the demo in ops/examples/capstan.yaml: the shipped trace on the example fleet, its
// virtual time sped up so that a scale-up shows within the first minute. One line per
// changed target, with its reason, until Ctrl-C or SIGTERM (the tick in flight finishes
// and is made durable; exit 0).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_run_command(CLI::App& app, int& status);

}  // namespace capstan::cli
