// `saturation-token`: llm-d WVA's token-based saturation analyzer as a policy (seed 002,
// "saturation-token-based"): per role, token demand against min(k1, k2) token capacity
// gives required / spare tokens; the cost-aware optimizer places them; the shared
// finisher applies the enforcer and the GPU budget. The analyzer's memory between ticks
// (k2 history, remembered capacity) is this policy's state.
#pragma once

#include <memory>

#include "domain/policies/policy.hpp"

namespace capstan {

std::shared_ptr<const TickPolicy> saturation_token_policy();

// The policy over a fleet's states (policy.hpp).
class SaturationTokenPolicy : public DrivenPolicy {
 public:
  explicit SaturationTokenPolicy(PolicyConfig config = {}) : DrivenPolicy(saturation_token_policy(), std::move(config)) {}
};

}  // namespace capstan
