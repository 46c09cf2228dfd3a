#include "domain/stages/greedy_optimizer.hpp"

#include <algorithm>
#include <limits>

#include "domain/stages/cost_aware_optimizer.hpp"
#include "domain/stages/gpu_budget.hpp"

namespace capstan {
namespace {

// Scale-ups in the order the model wants them filled: most cost-efficient first.
double preference(const VariantSupply& v) {
  return v.per_replica_capacity > 0 ? v.cost_per_replica / v.per_replica_capacity
                                    : std::numeric_limits<double>::infinity();
}

}  // namespace

Result<std::vector<Decision>> optimize_greedy_by_score(std::span<const ModelSignals> models,
                                                       int gpu_budget) {
  std::vector<ModelPlan> plans;
  for (const auto& m : models) {
    ModelPlan plan{m.model, m.priority, {}};
    std::vector<std::pair<double, PlannedRequest>> ranked;
    for (const auto& signal : m.signals) {
      const auto requests = optimize_cost_aware(signal);
      for (std::size_t i = 0; i < requests.size(); ++i) {
        ranked.push_back({preference(signal.variants[i]),
                          {requests[i], std::max(signal.variants[i].gpus_per_replica, 1)}});
      }
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [_, request] : ranked) plan.requests.push_back(std::move(request));
    plans.push_back(std::move(plan));
  }
  return share_gpu_budget(plans, gpu_budget);
}

}  // namespace capstan
