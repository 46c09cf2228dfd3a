#include "domain/model/saturation_thresholds.hpp"

#include <cmath>
#include <limits>

#include "domain/core/format.hpp"

namespace capstan {

std::optional<Error> check_in_range(const std::string& name, double value, double lo, double hi) {
  if (std::isfinite(value) && value >= lo && value <= hi) return std::nullopt;
  if (hi == std::numeric_limits<double>::infinity()) {
    return invalid_argument(name + " must be a finite number >= " + fmt_num(lo) + ", got " +
                            fmt_num(value));
  }
  return invalid_argument(name + " must be in [" + fmt_num(lo) + ", " + fmt_num(hi) + "], got " +
                          fmt_num(value));
}

std::optional<Error> validate(const SaturationThresholds& t) {
  if (!(t.kv_cache_threshold > 0)) {
    return invalid_argument("kv_cache_threshold must be in (0, 1], got " +
                            fmt_num(t.kv_cache_threshold));
  }
  if (auto err = check_in_range("kv_cache_threshold", t.kv_cache_threshold, 0, 1)) return err;
  return check_in_range("queue_length_threshold", t.queue_length_threshold, 0,
                        std::numeric_limits<double>::infinity());
}

bool kv_saturated(const PodMetrics& pod, const SaturationThresholds& t) {
  return pod.kv_usage >= t.kv_cache_threshold;
}

bool queue_saturated(const PodMetrics& pod, const SaturationThresholds& t) {
  return pod.queue_length >= t.queue_length_threshold;
}

}  // namespace capstan
