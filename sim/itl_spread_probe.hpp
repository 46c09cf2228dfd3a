// The per-request ITL evidence one simulated fleet (typically one replica) gives at a
// steady Poisson load, read as `hybrid` reads it (domain/model/itl_tail.hpp): each
// 30 s window's histograms of the first variant's pods, at the rate they served, against
// a queue model of the replica. Shared by the spread's test against the simulator and
// bench/itl_spread_bench.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "domain/model/itl_tail.hpp"
#include "domain/model/queue_model.hpp"
#include "sim/fleet_config.hpp"
#include "sim/length_source.hpp"

namespace capstan::sim {

struct ItlSpreadProbe {
  std::vector<std::vector<ItlTailPoint>> windows;  // one per window with requests, after the warm-up
  double mean_load_part_ms = 0;                    // the model's mean ITL minus d1, over those windows
};

ItlSpreadProbe probe_itl_spread(const FleetConfig& fleet, double rate_rps, std::shared_ptr<LengthSource> lengths,
                                const SloTargets& slo, const QueueAnalyzer& model, double duration_s = 1800,
                                double warm_up_s = 300, std::uint64_t seed = 3);

}  // namespace capstan::sim
