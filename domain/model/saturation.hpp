// The percentage-based saturation analyzer, WVA's default `saturation` policy (seed 002,
// "saturation-percentage-based"). A ready replica is saturated when its KV-cache usage
// reaches kv_cache_threshold or its queue reaches queue_length_threshold. Averaged over
// the non-saturated replicas, spare KV (threshold - usage) below kv_spare_trigger or
// spare queue below queue_spare_trigger asks for one more replica on the cheapest
// variant that has no pending replicas. Scale-down is safe only with at least two
// non-saturated replicas and when spreading their load over N-1 of them still leaves
// both spares at or above their triggers; it removes one replica from the most
// expensive variant. While any variant is in flight the whole model holds.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"
#include "domain/model/saturation_thresholds.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

struct SaturationConfig {
  SaturationThresholds thresholds;      // 0.80 KV, 5 queued
  double kv_spare_trigger = 0.10;       // 0..kv_cache_threshold
  double queue_spare_trigger = 3;       // requests, >= 0
};

// With fewer non-saturated replicas the load of one cannot be absorbed safely.
inline constexpr int kMinNonSaturatedForScaleDown = 2;

// Names the offending field: "kv_cache_threshold must be in [0, 1], got 1.2".
std::optional<Error> validate(const SaturationConfig& config);

struct SaturationAnalysis {
  int replicas = 0;                  // ready pods that reported
  int saturated_replicas = 0;
  double avg_spare_kv = 0;           // over the non-saturated replicas; 0 when none
  double avg_spare_queue = 0;
  bool scale_up_needed = false;
  bool scale_down_safe = false;
  std::vector<ScalingRequest> requests;  // one per variant, in input order

  int non_saturated_replicas() const { return replicas - saturated_replicas; }
};

// Errors (kInvalidArgument) on an invalid config. A model with no ready pod reporting
// holds every variant with kMetricsMissing.
Result<SaturationAnalysis> analyze_saturation(std::span<const VariantState> variants,
                                              const SaturationConfig& config);

}  // namespace capstan
