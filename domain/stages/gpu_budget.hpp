// The GPU budget shared by every model capstan scales (seed 002, "Greedy-by-score
// (limited mode, enableLimiter: true)"), and the invariant the enforcer keeps: the
// targets of all variants together never take more GPUs than the budget.
//
// Scale-downs and holds are always granted and their GPUs counted first. The GPUs left
// are handed out one replica at a time to the model with the highest claim,
// priority / (replicas held + 1), counting what it keeps and what it has been granted; a
// tie goes to the higher priority. Equal priorities alternate; priority 2 against 1
// ends with two replicas held for every one, the odd replica to the higher priority
// (4 and 1 of five). A replica that does not fit closes that request; the model's next
// request (e.g. a variant with fewer GPUs per replica) may still fit. A scale-up cut
// short says so in its reason (kBudgetLimited), with the figures: "hold at 2: GPU budget
// blocked the scale-up (wanted 6, granted 2; budget 8 GPUs, 8 in targets, 4 per
// replica); policy: <why it wanted 6>".
//
// Priority reclaims: a scale-up the budget still blocks may take a replica from a model
// of lower priority whose last replica has no stronger a claim, priority / replicas
// held, than the blocked model's next, by the same rule. Replicas granted while the
// budget had room would otherwise stay with whoever asked first, however low its
// priority. At most one replica per blocked model per tick, taken from the donor's least
// preferred variant above its minimum; the donor's decision says so (kBudgetLimited,
// "budget.reclaimed"). Tick after tick the shares settle where the grants would have
// put them.
#pragma once

#include <span>
#include <vector>

#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

struct PlannedRequest {
  ScalingRequest request;
  int gpus_per_replica = 1;  // >= 1
  int min_replicas = 0;      // a reclaim never takes the variant below it
};

// One model's wishes, in the order it prefers them to be filled.
struct ModelPlan {
  ModelKey model;
  double priority = 1.0;  // > 0, WVA's per-model `priority`
  std::vector<PlannedRequest> requests;
};

// One decision per request, plans and requests in input order. Errors
// (kInvalidArgument) on a negative budget, a priority <= 0 or GPUs per replica < 1.
Result<std::vector<Decision>> share_gpu_budget(std::span<const ModelPlan> plans, int gpu_budget);

}  // namespace capstan
