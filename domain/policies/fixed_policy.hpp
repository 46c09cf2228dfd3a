// `fixed`: static provisioning, the baseline every autoscaler is compared with. Each
// variant is held at the replica count it had at the first tick this policy saw (in
// the simulator, the fleet's configured initial replicas), whatever the load: the
// decision is always a hold, "hold at N: static provisioning". The remembered counts
// are the policy's whole state.
#pragma once

#include <memory>

#include "domain/policies/policy.hpp"

namespace capstan {

std::shared_ptr<const TickPolicy> fixed_policy();

// The policy over a fleet's states (policy.hpp).
class FixedPolicy : public DrivenPolicy {
 public:
  explicit FixedPolicy(PolicyConfig config = {}) : DrivenPolicy(fixed_policy(), std::move(config)) {}
};

}  // namespace capstan
