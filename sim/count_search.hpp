// The cheapest replica counts per variant at which a fixed fleet meets its SLO
// attainment, searched with a yes/no probe that simulates the fleet (fixed_fleet_probe.hpp).
// Shared by the fleet-level oracle (per window) and the best static fleet (whole run).
//
// Assumes that adding a replica never lowers attainment (monotone in each count): a
// probe at counts c that fails rules out every c' <= c, one that meets rules in every
// c' >= c. The simulator keeps it very nearly so (every probe of a search sees the same
// requests and the same seed), not exactly: the router may place requests differently.
//
// 1. Each variant alone (the others at their minimum): the fewest replicas that meet,
//    by galloping from a hint (the previous window's answer) and bisecting.
// 2. The mixes that would be cheaper than the best single variant, in order of weight
//    (then tie weight, then fewer replicas), skipping those a failed probe rules out;
//    the first that meets is the answer. A fleet of more than kMaxMixCandidates
//    compositions below that weight is not searched for mixes.
// When nothing meets (even every variant at max), the answer is every variant at max.
#pragma once

#include <functional>
#include <optional>
#include <vector>

namespace capstan::sim {

struct CountBounds {
  int min_replicas = 0;
  int max_replicas = 0;
  double weight = 0;      // per replica: GPUs, or cost per hour
  double tie_weight = 0;  // per replica, breaks ties in weight (cost, or GPUs)
};

inline constexpr long long kMaxMixCandidates = 200000;

// Called once per composition searched; callers cache across searches.
using MeetsProbe = std::function<bool(const std::vector<int>& counts)>;

struct CountSearch {
  std::vector<int> counts;                 // the cheapest that meets; all at max when none does
  bool met = false;
  std::vector<std::optional<int>> alone;   // per variant: the fewest of it alone that meet, if any
};

CountSearch cheapest_counts(const std::vector<CountBounds>& bounds, const MeetsProbe& meets,
                            const std::vector<int>& hint = {});

}  // namespace capstan::sim
