// `erlang`: Inferscale's pipeline (seed 004) as a policy. Holt forecast of the request
// rate (alpha 0.3, beta = alpha / 2) at the learned cold-start horizon -> the Erlang-C
// M/M/k replica count keeping P(wait > TTFT target) under the tail probability, each
// replica a server whose rate is its EKF-learned lambda* at the SLO -> the warm-pool
// optimizer, J(k) = GPU cost x k + SLA penalty x P(violation), which may keep extra
// replicas warm -> stability controls (scale-down cooldown) in the shared finisher.
// The replicas go to the variant with the lowest cost per unit of capacity; the other
// variants keep theirs and count toward k. Without a TTFT target (0) there is no wait
// to bound: k = ceil(demand / lambda*), lambda* at the ITL target alone, and no warm pool.
#pragma once

#include <memory>

#include "domain/policies/policy.hpp"

namespace capstan {

std::shared_ptr<const TickPolicy> erlang_policy();

// The policy over a fleet's states (policy.hpp).
class ErlangPolicy : public DrivenPolicy {
 public:
  explicit ErlangPolicy(PolicyConfig config = {}) : DrivenPolicy(erlang_policy(), std::move(config)) {}
};

}  // namespace capstan
