// `capstan analyze ...`: the domain's capacity calculators callable from a shell, JSON
// on stdout. Names of flags and output fields are relied on by acceptance checks.
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_analyze_command(CLI::App& app);

}  // namespace capstan::cli
