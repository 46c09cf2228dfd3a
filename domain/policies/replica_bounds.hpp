// A variant's replica bounds as the per-variant policies (hpa, load, throughput) apply
// and report them. The hold on missing metrics is domain/stages/metric_guard.hpp.
#pragma once

#include <optional>

#include "domain/core/decision.hpp"
#include "domain/core/types.hpp"

namespace capstan {

// The variant's [min_replicas, max_replicas], with the code that applies if it bit.
struct Bounded {
  int target = 0;
  std::optional<ReasonCode> limited_by;  // kMinReplicas or kMaxReplicas
};
Bounded clamp_to_bounds(int target, const VariantSpec& spec);

}  // namespace capstan
