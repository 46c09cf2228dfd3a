// When a replica counts as saturated, shared by both WVA saturation analyzers (seed
// 002, "Saturation Analyzer"): its KV-cache usage reaches kv_cache_threshold or its
// queue reaches queue_length_threshold. The percentage analyzer reads it as "this
// replica has no spare room"; the token analyzer reads the queue half as "the tokens in
// use now are this replica's observed compute bound" and the KV half as its memory bound.
#pragma once

#include <optional>
#include <string>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

struct SaturationThresholds {
  double kv_cache_threshold = 0.80;   // fraction of KV cache, in (0, 1]
  double queue_length_threshold = 5;  // requests waiting, >= 0
};

std::optional<Error> validate(const SaturationThresholds& thresholds);

bool kv_saturated(const PodMetrics& pod, const SaturationThresholds& thresholds);
bool queue_saturated(const PodMetrics& pod, const SaturationThresholds& thresholds);
inline bool saturated(const PodMetrics& pod, const SaturationThresholds& thresholds) {
  return kv_saturated(pod, thresholds) || queue_saturated(pod, thresholds);
}

// An Error unless lo <= value <= hi and value is finite:
// "<name> must be in [lo, hi], got <value>". Shared by the analyzers' validators.
std::optional<Error> check_in_range(const std::string& name, double value, double lo, double hi);

}  // namespace capstan
