// `capstan analyze model --input FILE`: the queueing-model analyzer of one model over
// a history of snapshots (JSON lines, or one JSON document), tuner state carried from
// each snapshot to the next, one JSON result line per snapshot.
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_analyze_model_command(CLI::App& analyze);

}  // namespace capstan::cli
