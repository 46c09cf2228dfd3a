// `capstan scenarios`: the scenario suite of issue 9 (sim/scenarios/*.yaml).
//   capstan scenarios list [--dir DIR]
//   capstan scenarios run [--only NAME ...] [--policy NAME|all] [--json FILE]
//                         [--report FILE.html] [--dir DIR] [--jobs N] [--duration-s S]
// `run` runs each selected scenario for each policy through sim/scenario_runner.hpp,
// prints the policy x scenario matrix, each check's figure against its limit, and the
// suite's wall time. Exit status: 0 when the default policy (hybrid) passed every
// scenario run (without hybrid in the run: when every run passed), 1 otherwise, 2 on
// bad input (UsageError naming the flag or the file, key and rule).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

// `exit_status` receives 1 when the suite failed; main() returns it.
void add_scenarios_command(CLI::App& app, int& exit_status);

}  // namespace capstan::cli
