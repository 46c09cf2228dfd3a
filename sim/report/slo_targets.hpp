// Issue 22's targets judged from one `capstan simulate --policy all --seeds ...
// --json FILE` document (summary_json.hpp per seed, seed_summary.hpp around them): the
// policy under test (`hybrid`) must reach the SLO's attainment, at no more GPU-hours
// than the best static fleet that meets it, and at no more than `peer_ratio` times the
// GPU-hours of every peer policy whose attainment is equal or better; each as the median
// and the worst over the seeds. bench/slo_targets_bench.cpp prints the verdict per traffic
// source.
//
// How "median" and "worst" pair figures: the median of a per-seed figure is taken as the
// simulate table takes it (seed_summary.hpp: nearest rank, the lower middle); the worst is
// the per-seed extreme. The static-fleet ratio is per seed (`vs_static`), so a seed whose
// static fleet is cheap is judged against that fleet. A peer counts at the median when
// its median attainment is >= the policy's median, and the ratio is of the two median
// GPU-hours; it counts at a seed when its attainment at that seed is >= the policy's, and
// the worst ratio is the highest over those seeds. A source whose static fleet misses the
// attainment at any seed has no yardstick there: that target is not met, and says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan::sim {

struct SloTargetsSpec {
  std::string policy = "hybrid";
  double attainment = 0.99;  // the SLO's attainment the policy must reach
  double peer_ratio = 0.75;  // GPU-hours over any peer at equal or better attainment, at most
};

struct MedianWorst {
  double median = 0;
  double worst = 0;
};

struct PeerComparison {
  std::string policy;
  MedianWorst attainment;  // worst: the lowest
  MedianWorst gpu_hours;   // worst: the highest
  bool counts_at_median = false;        // median attainment >= the policy's median
  double median_ratio = 0;              // policy's median GPU-hours / this peer's median
  std::vector<std::uint64_t> seeds_counted;  // seeds where its attainment >= the policy's
  std::optional<double> worst_ratio;    // highest policy/peer GPU-hours over seeds_counted
};

// One target, judged at the median and at the worst seed.
struct TargetCheck {
  bool median_met = false;
  bool worst_met = false;
};

struct SloTargetsVerdict {
  std::vector<std::uint64_t> seeds;
  MedianWorst attainment;        // the policy's; worst: the lowest
  MedianWorst gpu_hours;         // the policy's; worst: the highest
  MedianWorst static_gpu_hours;  // the best static fleet's; worst: the highest
  std::vector<std::uint64_t> static_misses;  // seeds at which no static fleet within the maxima meets the attainment
  std::optional<MedianWorst> vs_static;      // policy/static GPU-hours per seed; none without a static fleet
  // The best static fleet's attainment when asked for at t = 0 beside the fleet's initial
  // replicas (static_fleet.hpp, `from_start`); worst: the lowest. What a policy holding
  // that fleet reaches at most once it must start it; none in documents that lack it.
  std::optional<MedianWorst> static_from_start_attainment;
  std::vector<PeerComparison> peers;         // every other policy, in the document's order
  int errors = 0;                            // seeds at which the policy threw
  TargetCheck reaches_attainment;
  TargetCheck within_static;
  TargetCheck below_peers;
  bool all_met() const;
};

// Error when the document has no per-seed summaries (or is not one), or a seed lacks the
// policy, its figures or a static fleet entry.
Result<SloTargetsVerdict> judge_slo_targets(const nlohmann::json& simulate_document, const SloTargetsSpec& spec);

}  // namespace capstan::sim
