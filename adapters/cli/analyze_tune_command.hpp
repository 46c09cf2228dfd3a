// `capstan analyze tune --input FILE.jsonl`: runs the EKF tuner over a file of
// observations, one JSON object a line, and prints the filter's state after each.
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_analyze_tune_command(CLI::App& analyze);

}  // namespace capstan::cli
