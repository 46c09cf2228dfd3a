// A mergeable quantile sketch for latencies with a fixed relative error: values go to
// logarithmic buckets of ratio gamma = (1 + a) / (1 - a), a = kRelativeError, and a
// quantile is read back as the bucket's midpoint in that ratio, so any reported
// percentile is within a = 0.5 % of a value of the same rank (the DDSketch bound,
// Masson et al., VLDB 2019). Values from kMinMs to kMaxMs (1 us to ~2.8 h) have their
// own buckets; zero (the mean ITL of one-token answers) is counted exactly, smaller
// positive values fall into the first bucket and larger ones into the last.
//
// The storage is a fixed array (bucket_count() cells), whatever the number of values:
// this is what keeps a simulation's memory independent of the trace length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace capstan::sim {

class LatencySketch {
 public:
  static constexpr double kRelativeError = 0.005;
  static constexpr double kMinMs = 1e-3;
  static constexpr double kMaxMs = 1e7;

  LatencySketch();

  void add(double value_ms);
  void merge(const LatencySketch& other);

  std::uint64_t count() const { return count_; }
  // Nearest-rank percentile (q in [0, 100]) within kRelativeError; 0 when empty. The
  // exact minimum and maximum are kept, so q = 0 and q = 100 are exact.
  double percentile(double q) const;

  std::size_t bucket_count() const { return counts_.size(); }

 private:
  std::size_t index_of(double value_ms) const;
  double value_of(std::size_t index) const;

  std::vector<std::uint64_t> counts_;  // fixed size, set by the constructor
  std::uint64_t zeros_ = 0;
  std::uint64_t count_ = 0;
  double min_ms_ = 0;
  double max_ms_ = 0;
};

}  // namespace capstan::sim
