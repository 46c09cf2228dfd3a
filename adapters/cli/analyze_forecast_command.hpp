// `capstan analyze forecast`: folds a recorded series (one value per line, one line per
// step; blank lines ignored) into a load predictor (domain/forecast/predictor.hpp) and prints
// {"forecast": <value at --horizon-s>, "state": <the predictor state>} as one JSON line;
// for holt also "level" and "trend" (seed 004, chapter 4). A malformed line is a
// UsageError naming the file and line number (exit 2).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_analyze_forecast_command(CLI::App& analyze);

// Reads the series file; throws UsageError naming the file (and line) on bad input.
std::vector<double> read_series_file(const std::string& path);

}  // namespace capstan::cli
