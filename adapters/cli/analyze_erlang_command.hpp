// `capstan analyze erlang`: the M/M/c tail bound of Inferscale's queueing math (seed 004,
// chapter 5; domain/model/erlang.hpp) from the command line. With --servers it prints
// {"p_wait", "p_wait_gt_sla", "rho"}; with --max-violation instead it prints
// {"required_servers"}. Bad input is a UsageError naming the flag (exit 2).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_analyze_erlang_command(CLI::App& analyze);

}  // namespace capstan::cli
