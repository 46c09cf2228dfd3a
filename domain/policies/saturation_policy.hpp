// `saturation`: llm-d WVA's default, percentage-based saturation analyzer as a policy
// (seed 002, "saturation-percentage-based"): KV-cache and queue saturation of the ready
// replicas add one replica on the cheapest variant or remove one from the most
// expensive; the shared finisher applies the enforcer and the GPU budget. Nothing is
// learned and nothing remembered besides the finisher's clocks.
#pragma once

#include <memory>

#include "domain/policies/policy.hpp"

namespace capstan {

std::shared_ptr<const TickPolicy> saturation_policy();

// The policy over a fleet's states (policy.hpp).
class SaturationPolicy : public DrivenPolicy {
 public:
  explicit SaturationPolicy(PolicyConfig config = {}) : DrivenPolicy(saturation_policy(), std::move(config)) {}
};

}  // namespace capstan
