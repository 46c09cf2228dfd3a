// The token-based saturation analyzer, WVA's experimental `saturation-token` policy
// (seed 002, "saturation-token-based"). Per ready replica it takes capacity
// min(k1, k2) in tokens (domain/model/token_capacity.hpp) and demand = tokens in use + queued
// requests x average input length; per variant the median capacity across ready
// replicas times the ready count is the supply. A variant with no ready replica uses the
// capacity it last showed, else one derived from its engine limits. Requests queued in
// the EPP before any pod add demand: input tokens from max(bytes / 4, queued x average
// input) less the prefix-cache hit rate, output tokens from queued x average output.
//
// Signals, per role so that prefill and decode pools are sized on their own work:
//   required = demand / scale_up_threshold (0.85) - anticipated supply (incl. pending)
//   spare    = supply - demand / scale_down_boundary (0.70)
// both floored at 0. The EPP share goes to each role by what it will hold: prefill the
// input tokens, decode and combined servers input plus output.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "domain/model/capacity_signal.hpp"
#include "domain/core/result.hpp"
#include "domain/model/saturation_thresholds.hpp"
#include "domain/model/token_capacity.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

struct TokenSaturationConfig {
  SaturationThresholds thresholds;   // k1 uses the KV half, observed k2 the queue half
  double scale_up_threshold = 0.85;  // in (0, 1]
  double scale_down_boundary = 0.70; // in (0, scale_up_threshold)
};

inline constexpr double kBytesPerToken = 4;

std::optional<Error> validate(const TokenSaturationConfig& config);

struct TokenVariantInput {
  VariantState state;
  TokenVariantFacts facts;
};

// Model-level queue in the endpoint picker, ahead of every pod.
struct EppQueue {
  double queue_size = 0;             // requests
  double queue_bytes = 0;            // request bodies
  double prefix_cache_hit_rate = 0;  // model average, 0..1
};

enum class CapacitySource { kLive, kRemembered, kDerived, kNone };
const char* to_string(CapacitySource source);

struct TokenVariantCapacity {
  std::string variant;
  Role role = Role::kBoth;
  CapacitySource source = CapacitySource::kNone;
  double per_replica_capacity_tokens = 0;  // median of min(k1, k2)
  double total_capacity_tokens = 0;        // x ready replicas
  double anticipated_capacity_tokens = 0;  // x (ready + pending) replicas
  double total_demand_tokens = 0;
  double utilization = 0;                  // demand / capacity; 0 without capacity
  int ready_replicas = 0;
  int pending_replicas = 0;
};

struct TokenSaturationAnalysis {
  std::vector<TokenVariantCapacity> variants;  // in input order
  std::vector<CapacitySignal> signals;         // one per role present: both, prefill, decode
  double epp_input_tokens = 0;
  double epp_output_tokens = 0;
};

struct TokenSaturationStep {
  TokenSaturationAnalysis analysis;
  TokenCapacityState state;  // to pass to the next tick
};

// Errors (kInvalidArgument) on an invalid config or negative inputs, naming the field.
Result<TokenSaturationStep> analyze_saturation_token(std::span<const TokenVariantInput> variants,
                                                     const EppQueue& epp,
                                                     const TokenSaturationConfig& config,
                                                     const TokenCapacityState& state);

}  // namespace capstan
