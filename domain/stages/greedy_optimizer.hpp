// WVA's greedy-by-score optimizer, the limited mode (seed 002, "Optimizer",
// `enableLimiter: true`): every model's wishes are chosen as the cost-aware optimizer
// would choose them (domain/stages/cost_aware_optimizer.hpp), then the GPUs that scale-ups need
// are fair-shared across models by priority (domain/stages/gpu_budget.hpp).
#pragma once

#include <span>
#include <vector>

#include "domain/model/capacity_signal.hpp"
#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"

namespace capstan {

struct ModelSignals {
  ModelKey model;
  double priority = 1.0;                // > 0; default 1.0 as in WVA
  std::vector<CapacitySignal> signals;  // one per role
};

// One decision per variant; models in input order, each model's variants in the order
// it wants them filled (most cost-efficient first). Errors as share_gpu_budget does.
Result<std::vector<Decision>> optimize_greedy_by_score(std::span<const ModelSignals> models,
                                                       int gpu_budget);

}  // namespace capstan
