// `capstan analyze queue` (lambda* of the WVA queue model) and `capstan analyze slo`
// (the SLO resolution chain).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_analyze_queue_command(CLI::App& analyze);
void add_analyze_slo_command(CLI::App& analyze);

}  // namespace capstan::cli
