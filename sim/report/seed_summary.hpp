// Several seeds of one `capstan simulate`: each figure of each policy (and of the
// yardsticks) as its median and its worst over the seeds, so that one lucky seed
// cannot carry a claim. Worst is the lowest for SLO attainment and the highest for
// every other figure (latencies, failures, GPU-hours, cost, actions, ratios).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace capstan::sim {

// The median (nearest rank, lower of the two middle values) and the worst of values;
// higher_is_worse says which end is worst. Nulls are skipped; {null, null} when none.
nlohmann::json median_and_worst(const std::vector<nlohmann::json>& values, bool higher_is_worse);

// `summaries` are summary_json() documents of the same policies, one per seed:
// {"seeds": [...], "oracle": {"gpu_hours": {"median", "worst"}}, "static_fleet": {...},
//  "policies": [{"policy", "<figure>": {"median", "worst"}, "errors": n}, ...]}.
nlohmann::json seed_aggregate_json(const std::vector<std::uint64_t>& seeds,
                                   const std::vector<nlohmann::json>& summaries);

}  // namespace capstan::sim
