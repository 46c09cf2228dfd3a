// SLO resolution (seed 000 section 3): the TTFT/ITL targets a model is sized against.
//   1. explicit targets from configuration: used as given when either is > 0, a 0
//      target leaving its metric unconstrained (slo_targets.hpp);
//   2. derived from learned (alpha, beta, gamma) with sloMultiplier k, which puts the
//      steady-state iteration time at k x alpha (utilisation 1 - 1/k), taking the
//      maximum across the model's variants;
//   3. observed latency x 1.5, capped at 10 s TTFT / 500 ms ITL, while nothing is learned.
// Paths 2 and 3 apply only when both targets are 0.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "domain/model/queue_model.hpp"
#include "domain/model/slo_targets.hpp"
#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

// The multiplier comes first so that the older three-number form SloConfig{k, ttft, itl}
// keeps its meaning rather than silently reading k as a TTFT target.
struct SloConfig {
  double slo_multiplier = 3.0;  // k, must be > 1
  SloTargets targets;           // explicit when either is > 0; both 0: derive (paths 2, 3)
};

inline constexpr double kFallbackHeadroom = 1.5;
inline constexpr double kMaxFallbackTtftMs = 10000;
inline constexpr double kMaxFallbackItlMs = 500;

// Names the offending field: "sloMultiplier must be > 1.0, got 0.8".
std::optional<Error> validate(const SloConfig& config);

// What one variant contributes to the resolution.
struct VariantSloInput {
  std::optional<ServiceParams> params;  // learned parameters, if any
  double avg_input_tokens = 0;
  double avg_output_tokens = 0;
  double observed_ttft_ms = 0;          // 0 when nothing was observed
  double observed_itl_ms = 0;
};

enum class SloPath { kExplicit, kDerived, kObserved };
const char* to_string(SloPath path);

struct ResolvedSlo {
  SloTargets targets;
  SloPath path = SloPath::kExplicit;
};

// TTFT = k alpha + (beta + gamma) in; ITL = k alpha + beta + gamma (in + (out + 1) / 2).
SloTargets derive_slo(const ServiceParams& params, double slo_multiplier, double input_tokens,
                      double output_tokens);

// Errors (kInvalidArgument) on an invalid config, (kNoData) when no path applies.
Result<ResolvedSlo> resolve_slo(const SloConfig& config, std::span<const VariantSloInput> variants);

}  // namespace capstan
