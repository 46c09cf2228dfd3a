// The table `capstan simulate` prints: one row per policy with aligned columns, read
// from the same JSON document the --json flag writes (sim/report/summary_json.hpp), so
// the two never disagree.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace capstan::cli {

std::string format_simulate_table(const nlohmann::json& summary);

// The same table over several seeds (sim/report/seed_summary.hpp's aggregate): each
// figure as "median (worst)".
std::string format_seeds_table(const nlohmann::json& aggregate);

// {"median": m, "worst": w} as "m (w)" with `decimals`; "-" for nulls.
std::string median_worst_text(const nlohmann::json& figure, int decimals);

}  // namespace capstan::cli
