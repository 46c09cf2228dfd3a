// The incident-review commands of `capstan replay` (issue 23), beside `export`:
//   timeline --data DIR [--model NS/ID] [--variant V] [--from T] [--to T] [--type TYPE]
//            [--format table|json|csv]
//   verify   --data DIR [--from-seq N] [--to-seq N] [--from T] [--to T] [--show N]
//   what-if  --data DIR [--config OTHER.yaml] [--policy P]
//   explain  --data DIR --at T --model NS/ID
//   report   --data DIR --out report.html
// All open the store read-only (a RocksDB secondary, so a live daemon's store too) and
// write nothing into it. Exit status: 0 on success (verify: only when every recomputed
// event matches), 1 when verify finds a divergence or the store cannot be read to the
// end, 2 on a bad flag (UsageError naming it).
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

void add_replay_review_commands(CLI::App& replay, int& exit_status);

}  // namespace capstan::cli
