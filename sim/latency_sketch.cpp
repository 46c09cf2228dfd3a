// Log-bucket quantile sketch; see latency_sketch.hpp.
#include "sim/latency_sketch.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim {

namespace {
const double kGamma = (1 + LatencySketch::kRelativeError) / (1 - LatencySketch::kRelativeError);
const double kLogGamma = std::log(kGamma);
// Bucket i holds (kMinMs * gamma^(i-1), kMinMs * gamma^i].
const auto kBuckets =
    static_cast<std::size_t>(std::ceil(std::log(LatencySketch::kMaxMs / LatencySketch::kMinMs) / kLogGamma)) + 1;
}  // namespace

LatencySketch::LatencySketch() : counts_(kBuckets, 0) {}

std::size_t LatencySketch::index_of(double value_ms) const {
  if (value_ms <= kMinMs) return 0;
  const double i = std::ceil(std::log(value_ms / kMinMs) / kLogGamma);
  return std::min(counts_.size() - 1, static_cast<std::size_t>(i));
}

double LatencySketch::value_of(std::size_t index) const {
  // The point whose relative distance to both bucket edges is kRelativeError.
  const double upper = kMinMs * std::pow(kGamma, static_cast<double>(index));
  return 2 * upper / (kGamma + 1);
}

void LatencySketch::add(double value_ms) {
  if (!(value_ms > 0)) {
    ++zeros_;
    value_ms = 0;
  } else {
    ++counts_[index_of(value_ms)];
  }
  min_ms_ = count_ == 0 ? value_ms : std::min(min_ms_, value_ms);
  max_ms_ = count_ == 0 ? value_ms : std::max(max_ms_, value_ms);
  ++count_;
}

void LatencySketch::merge(const LatencySketch& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ms_ = count_ == 0 ? other.min_ms_ : std::min(min_ms_, other.min_ms_);
  max_ms_ = count_ == 0 ? other.max_ms_ : std::max(max_ms_, other.max_ms_);
  zeros_ += other.zeros_;
  count_ += other.count_;
}

double LatencySketch::percentile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q / 100.0 * static_cast<double>(count_))));
  if (rank >= count_) return max_ms_;
  if (rank <= zeros_) return 0;
  std::uint64_t seen = zeros_;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(value_of(i), min_ms_, max_ms_);
  }
  return max_ms_;
}

}  // namespace capstan::sim
