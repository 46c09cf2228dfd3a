// capstan: the command-line entry point. Each subcommand is registered by the layer
// that implements it; this file only parses and maps errors to exit codes.
#include <iostream>

#include <CLI/CLI.hpp>

#include "adapters/cli/analyze_command.hpp"
#include "adapters/cli/config_command.hpp"
#include "adapters/cli/replay_command.hpp"
#include "adapters/cli/run_command.hpp"
#include "adapters/cli/scenarios_command.hpp"
#include "adapters/cli/sim_serve_command.hpp"
#include "adapters/cli/simulate_command.hpp"
#include "adapters/cli/usage_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"capstan: SLO-driven autoscaler for LLM inference fleets"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "capstan 0.1.0");

  capstan::cli::add_analyze_command(app);
  capstan::cli::add_simulate_command(app);
  capstan::cli::add_sim_serve_command(app);
  int status = 0;
  capstan::cli::add_scenarios_command(app, status);
  capstan::cli::add_run_command(app, status);
  capstan::cli::add_config_command(app, status);
  capstan::cli::add_replay_command(app, status);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "capstan: " << e.what() << "\n";
    return capstan::cli::kExitUsage;
  } catch (const capstan::cli::UsageError& e) {
    std::cerr << "capstan: " << e.what() << "\n";
    return capstan::cli::kExitUsage;
  }
  return status;
}
