// `hybrid`, capstan's default policy (docs/policies.md has the reasoning and formulas):
//   demand  D = max(forecast of the request rate at the variant's cold-start horizon,
//                   observed rate + the backlog still waiting when new replicas can be
//                   ready, at most what clients wait for (backlog_projection.hpp) /
//                   drain time)
//   capacity per replica c_v = min(lambda* at the SLO, the rate keeping
//                   P(TTFT > target) <= p, and, where pods report their requests' own
//                   ITLs, the rate keeping P(ITL > target) <= p by the measured spread
//                   (itl_tail.hpp)) from the EKF-learned queue model, times the
//                   correction measured latency puts on a capacity it contradicts
//                   (hybrid_correction.hpp), never below what the replicas serve now
//                   well inside the SLO (served_capacity.hpp)
//   supply  = sum over variants of c_v x replicas, starting ones included
// Missing capacity goes to the most cost-efficient variant; spare capacity (beyond a
// 15% margin over the peak of this tick's demand and the request rates observed over
// the last scale-down cooldown) comes off the
// least cost-efficient one, at most half the supply per tick unless the model is idle
// (release_bound.hpp); a variant below half the best capacity per cost is not bought.
// The shared finisher then applies the
// metric guard, step limit, enforcer and GPU budget. A model with nothing learned yet
// falls back to WVA's saturation rule, which needs no parameters, raised to what measured
// latency and queue call for (hybrid_safe_start.hpp); a scale-up the model asks for while
// the variant's pods meet the SLO at more than its learned capacity is held.
//
// A model split into prefill and decode variants is sized per role instead
// (role_sizing.hpp): each role carries the model's whole request rate, from the same
// forecast, with its own backlog and a per-replica capacity learned from its own
// forward passes.
#pragma once

#include <memory>

#include "domain/policies/policy.hpp"

namespace capstan {

std::shared_ptr<const TickPolicy> hybrid_policy();

// The policy over a fleet's states (policy.hpp).
class HybridPolicy : public DrivenPolicy {
 public:
  explicit HybridPolicy(PolicyConfig config = {}) : DrivenPolicy(hybrid_policy(), std::move(config)) {}
};

}  // namespace capstan
