#include "domain/stages/gpu_budget.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

struct Wish {
  std::size_t plan = 0;
  std::size_t request = 0;
  int wanted = 0;   // replicas above current
  int granted = 0;
  bool closed = false;
};

std::optional<Error> validate(std::span<const ModelPlan> plans, int gpu_budget) {
  if (gpu_budget < 0) {
    return invalid_argument("gpu_budget must be >= 0, got " + std::to_string(gpu_budget));
  }
  for (const auto& p : plans) {
    if (!std::isfinite(p.priority) || p.priority <= 0) {
      return invalid_argument(p.model.model_id + ": priority must be > 0, got " +
                              fmt_num(p.priority));
    }
    for (const auto& r : p.requests) {
      if (r.gpus_per_replica < 1) {
        return invalid_argument(r.request.variant + ": gpus_per_replica must be >= 1, got " +
                                std::to_string(r.gpus_per_replica));
      }
    }
  }
  return std::nullopt;
}

int committed_gpus(std::span<const ModelPlan> plans) {
  int gpus = 0;
  for (const auto& p : plans) {
    for (const auto& r : p.requests) {
      gpus += std::min(r.request.current_replicas, r.request.target_replicas) * r.gpus_per_replica;
    }
  }
  return gpus;
}

// The plan whose next open wish has the highest score; plans.size() when none is open.
std::size_t next_plan(std::span<const ModelPlan> plans, const std::vector<Wish>& wishes,
                      const std::vector<int>& granted_per_plan) {
  std::size_t best = plans.size();
  double best_score = 0;
  for (const auto& w : wishes) {
    if (w.closed || w.granted >= w.wanted) continue;
    const double score = plans[w.plan].priority / (granted_per_plan[w.plan] + 1);
    if (best == plans.size() || score > best_score) {
      best = w.plan;
      best_score = score;
    }
  }
  return best;
}

// Says that the budget, not the policy, stopped the scale-up, with the figures to check
// it by, and keeps the policy's own reason for wanting more.
Reason limited_reason(const ScalingRequest& r, int target, int gpus_per_replica, int gpu_budget, int gpus_used) {
  return make_reason(ReasonCode::kBudgetLimited, "budget.limited",
                     {{"current", r.current_replicas},
                      {"target", target},
                      {"wanted", r.target_replicas},
                      {"gpu_budget", gpu_budget},
                      {"gpus_in_targets", gpus_used},
                      {"gpus_per_replica", gpus_per_replica}},
                     {r.reason});
}

}  // namespace

Result<std::vector<Decision>> share_gpu_budget(std::span<const ModelPlan> plans, int gpu_budget) {
  if (auto err = validate(plans, gpu_budget)) return *err;

  std::vector<Wish> wishes;
  for (std::size_t p = 0; p < plans.size(); ++p) {
    for (std::size_t r = 0; r < plans[p].requests.size(); ++r) {
      const auto& req = plans[p].requests[r].request;
      if (req.target_replicas > req.current_replicas) {
        wishes.push_back({p, r, req.target_replicas - req.current_replicas, 0, false});
      }
    }
  }
  int used = committed_gpus(plans);
  std::vector<int> granted_per_plan(plans.size(), 0);
  for (std::size_t p = next_plan(plans, wishes, granted_per_plan); p < plans.size();
       p = next_plan(plans, wishes, granted_per_plan)) {
    // The plan's first open wish: its most preferred variant still asking.
    auto wish = std::find_if(wishes.begin(), wishes.end(), [p](const Wish& w) {
      return w.plan == p && !w.closed && w.granted < w.wanted;
    });
    const int gpus = plans[p].requests[wish->request].gpus_per_replica;
    if (used + gpus > gpu_budget) {
      wish->closed = true;
      continue;
    }
    used += gpus;
    ++wish->granted;
    ++granted_per_plan[p];
  }

  std::vector<Decision> out;
  std::vector<std::size_t> first_of_plan;
  for (const auto& plan : plans) {
    first_of_plan.push_back(out.size());
    for (const auto& r : plan.requests) out.push_back(to_decision(plan.model, r.request));
  }
  for (const auto& w : wishes) {
    if (w.granted == w.wanted) continue;
    const auto& req = plans[w.plan].requests[w.request].request;
    Decision& d = out[first_of_plan[w.plan] + w.request];
    d.target_replicas = req.current_replicas + w.granted;
    d.reason = limited_reason(req, d.target_replicas, plans[w.plan].requests[w.request].gpus_per_replica,
                              gpu_budget, used);
  }
  return out;
}

}  // namespace capstan
