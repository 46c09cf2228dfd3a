#include "adapters/cli/analyze_command.hpp"

#include "adapters/cli/analyze_erlang_command.hpp"
#include "adapters/cli/analyze_forecast_command.hpp"
#include "adapters/cli/analyze_model_command.hpp"
#include "adapters/cli/analyze_queue_command.hpp"
#include "adapters/cli/analyze_tune_command.hpp"

namespace capstan::cli {

void add_analyze_command(CLI::App& app) {
  CLI::App* analyze = app.add_subcommand(
      "analyze", "capacity calculators: queue model, EKF tuner, SLO resolution (JSON out)");
  analyze->require_subcommand(1);
  add_analyze_queue_command(*analyze);
  add_analyze_erlang_command(*analyze);
  add_analyze_forecast_command(*analyze);
  add_analyze_tune_command(*analyze);
  add_analyze_slo_command(*analyze);
  add_analyze_model_command(*analyze);
}

}  // namespace capstan::cli
