// `capstan sim serve`: the simulated fleet in real time, over HTTP on one loopback
// port (adapters/sim_serve/fleet_endpoints.hpp lists the endpoints). Virtual time
// follows the wall clock times --speedup, advanced every --tick-ms on the server's
// own thread; --file-sd keeps a Prometheus file-SD target list of the live pods.
// Runs until --duration-s, the end of the trace with an idle fleet, or SIGINT /
// SIGTERM, then prints a one-line summary. Bad flags or files: UsageError (exit 2).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

// Adds `serve` under the `sim` subcommand (creating `sim` if no one has yet).
void add_sim_serve_command(CLI::App& app);

}  // namespace capstan::cli
