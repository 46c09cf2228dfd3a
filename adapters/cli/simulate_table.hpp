// The table `capstan simulate` prints: one row per policy with aligned columns, read
// from the same JSON document the --json flag writes (sim/report/summary_json.hpp), so
// the two never disagree.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace capstan::cli {

std::string format_simulate_table(const nlohmann::json& summary);

}  // namespace capstan::cli
