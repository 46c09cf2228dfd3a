// `capstan replay`: offline work on a recorded store (DESIGN.md "Interfaces a user sees").
// `export` lives here; timeline, verify, what-if, explain and report in replay_review.hpp.
//   capstan replay export --data DIR --out FILE.jsonl|- [--from-seq N] [--to-seq N]
//                         [--type TYPE] [--model NS/MODEL_ID]
// Exit status: 0 when every selected event was written, 1 when the store could not be
// read to the end or the output not written, 2 on bad flags or a directory that holds
// no capstan store (UsageError naming the flag).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

// `exit_status` receives 1 when an export failed part way; main() returns it.
void add_replay_command(CLI::App& app, int& exit_status);

}  // namespace capstan::cli
