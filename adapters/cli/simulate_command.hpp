// `capstan simulate`: the policy benchmark harness. Runs every named policy (or
// `--policy all`: every registered one) over the same trace and fleet in virtual
// time through sim/harness.hpp, computes the offline oracle (sim/oracle.hpp), prints
// one aligned row per policy, and optionally writes the JSON summary and the
// self-contained HTML report. Bad flags or files: UsageError naming them (exit 2).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_simulate_command(CLI::App& app);

}  // namespace capstan::cli
