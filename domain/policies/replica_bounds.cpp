#include "domain/policies/replica_bounds.hpp"

#include <algorithm>

namespace capstan {

Bounded clamp_to_bounds(int target, const VariantSpec& spec) {
  if (target < spec.min_replicas) return {spec.min_replicas, ReasonCode::kMinReplicas};
  if (target > spec.max_replicas) return {spec.max_replicas, ReasonCode::kMaxReplicas};
  return {target, std::nullopt};
}

}  // namespace capstan
