// `queueing`: llm-d WVA's queueing-model path as a policy (seed 000; seed 002
// "Pipeline stages"). Per model: the queueing analyzer learns each variant's
// (alpha, beta, gamma) and sizes lambda* at the SLO; the cost-aware optimizer adds the
// missing capacity on the most cost-efficient variant and releases spare capacity from
// the most expensive; the shared finisher applies the enforcer and the GPU budget. It
// reacts to the current demand only: no forecast, no queue term (that is `hybrid`).
#pragma once

#include <memory>

#include "domain/policies/policy.hpp"

namespace capstan {

std::shared_ptr<const TickPolicy> queueing_policy();

// The policy over a fleet's states (policy.hpp).
class QueueingPolicy : public DrivenPolicy {
 public:
  explicit QueueingPolicy(PolicyConfig config = {}) : DrivenPolicy(queueing_policy(), std::move(config)) {}
};

}  // namespace capstan
