#include "domain/model/slo.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/format.hpp"

namespace capstan {

const char* to_string(SloPath path) {
  switch (path) {
    case SloPath::kExplicit: return "explicit";
    case SloPath::kDerived: return "derived";
    case SloPath::kObserved: return "observed";
  }
  return "explicit";
}

std::optional<Error> validate(const SloConfig& c) {
  if (!std::isfinite(c.slo_multiplier) || c.slo_multiplier <= 1.0) {
    return invalid_argument("sloMultiplier must be > 1.0, got " + fmt_num(c.slo_multiplier));
  }
  return validate(c.targets);
}

SloTargets derive_slo(const ServiceParams& p, double k, double in, double out) {
  return {k * p.alpha_ms + (p.beta_ms + p.gamma_ms) * in,
          k * p.alpha_ms + p.beta_ms + p.gamma_ms * (in + (out + 1) / 2)};
}

Result<ResolvedSlo> resolve_slo(const SloConfig& config, std::span<const VariantSloInput> variants) {
  if (auto err = validate(config)) return *err;
  if (config.targets.is_explicit()) return ResolvedSlo{config.targets, SloPath::kExplicit};
  // One SLO per model: every variant serves the same traffic, so take the loosest.
  SloTargets derived{0, 0};
  bool any_params = false;
  for (const auto& v : variants) {
    if (!v.params) continue;
    const SloTargets t = derive_slo(*v.params, config.slo_multiplier, v.avg_input_tokens,
                                    v.avg_output_tokens);
    if (!std::isfinite(t.ttft_ms) || !std::isfinite(t.itl_ms) || t.ttft_ms <= 0 || t.itl_ms <= 0) {
      continue;
    }
    derived.ttft_ms = std::max(derived.ttft_ms, t.ttft_ms);
    derived.itl_ms = std::max(derived.itl_ms, t.itl_ms);
    any_params = true;
  }
  if (any_params) return ResolvedSlo{derived, SloPath::kDerived};

  SloTargets observed{0, 0};
  bool any_observed = false;
  for (const auto& v : variants) {
    if (!(v.observed_ttft_ms > 0) || !(v.observed_itl_ms > 0) ||
        !std::isfinite(v.observed_ttft_ms) || !std::isfinite(v.observed_itl_ms)) {
      continue;
    }
    observed.ttft_ms = std::max(observed.ttft_ms, v.observed_ttft_ms);
    observed.itl_ms = std::max(observed.itl_ms, v.observed_itl_ms);
    any_observed = true;
  }
  if (any_observed) {
    return ResolvedSlo{{std::min(observed.ttft_ms * kFallbackHeadroom, kMaxFallbackTtftMs),
                        std::min(observed.itl_ms * kFallbackHeadroom, kMaxFallbackItlMs)},
                       SloPath::kObserved};
  }
  return Error{ErrorCode::kNoData,
               "no SLO: no explicit targets, no learned parameters and no observed latency"};
}

}  // namespace capstan
