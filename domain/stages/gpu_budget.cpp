#include "domain/stages/gpu_budget.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

// The plan whose next open wish has the highest score, priority / (replicas held + 1),
// a tie going to the higher priority; plans.size() when none is open.
std::size_t next_plan(std::span<const ModelPlan> plans, const std::vector<Wish>& wishes,
                      const std::vector<int>& held_per_plan) {
  std::size_t best = plans.size();
  double best_score = 0;
  for (const auto& w : wishes) {
    if (w.closed || w.granted >= w.wanted) continue;
    const double score = plans[w.plan].priority / (held_per_plan[w.plan] + 1);
    if (best == plans.size() || score > best_score ||
        (score == best_score && plans[w.plan].priority > plans[best].priority)) {
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

Reason reclaimed_reason(const ScalingRequest& r, int target, const ModelPlan& donor, const ModelPlan& to,
                        int gpu_budget) {
  return make_reason(ReasonCode::kBudgetLimited, "budget.reclaimed",
                     {{"current", r.current_replicas},
                      {"target", target},
                      {"wanted", r.target_replicas},
                      {"gpu_budget", gpu_budget},
                      {"to_model", to.model.model_id},
                      {"to_priority", to.priority},
                      {"priority", donor.priority}},
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
  std::vector<int> held_per_plan(plans.size(), 0);  // the replicas kept, then those granted
  for (std::size_t p = 0; p < plans.size(); ++p) {
    for (const auto& r : plans[p].requests) {
      held_per_plan[p] += std::min(r.request.current_replicas, r.request.target_replicas);
    }
  }
  for (std::size_t p = next_plan(plans, wishes, held_per_plan); p < plans.size();
       p = next_plan(plans, wishes, held_per_plan)) {
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
    ++held_per_plan[p];
  }

  // Every request's target after the grants: used is their GPUs.
  std::vector<std::vector<int>> targets(plans.size());
  for (std::size_t p = 0; p < plans.size(); ++p) {
    for (const auto& r : plans[p].requests) targets[p].push_back(r.request.target_replicas);
  }
  for (const auto& w : wishes) targets[w.plan][w.request] = plans[w.plan].requests[w.request].request.current_replicas + w.granted;

  // Priority reclaims, the highest priority's blocked wish first. `held` follows
  // `targets`; a reclaim that cannot make room is undone replica by replica.
  std::vector<int> held(plans.size(), 0);
  double lowest_priority = std::numeric_limits<double>::infinity();
  for (std::size_t p = 0; p < plans.size(); ++p) {
    for (int t : targets[p]) held[p] += t;
    lowest_priority = std::min(lowest_priority, plans[p].priority);
  }
  std::vector<std::optional<std::size_t>> reclaimed_by(plans.size());  // donor -> the plan it gave to
  std::vector<std::size_t> blocked;
  for (std::size_t i = 0; i < wishes.size(); ++i) {
    if (wishes[i].granted < wishes[i].wanted) blocked.push_back(i);
  }
  std::stable_sort(blocked.begin(), blocked.end(),
                   [&](std::size_t a, std::size_t b) { return plans[wishes[a].plan].priority > plans[wishes[b].plan].priority; });
  std::vector<bool> took(plans.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> taken;  // (donor, request) of one reclaim
  for (std::size_t i : blocked) {
    const Wish& w = wishes[i];
    const ModelPlan& to = plans[w.plan];
    if (took[w.plan] || to.priority <= lowest_priority) continue;  // one replica per model per tick; no one below
    const int gpus = to.requests[w.request].gpus_per_replica;
    // Take the weakest last replica of lower priority until this one fits, or give up.
    // Claims are priority / replicas, compared cross-multiplied so that equal ratios tie
    // exactly; a tie goes to the blocked model, whose priority is the higher.
    const int wanted_share = held[w.plan] + 1;
    taken.clear();
    int trial_used = used;
    while (trial_used + gpus > gpu_budget) {
      std::optional<std::size_t> donor;
      for (std::size_t d = 0; d < plans.size(); ++d) {
        if (plans[d].priority >= to.priority || held[d] == 0) continue;
        if (plans[d].priority * wanted_share > to.priority * held[d]) continue;  // theirs is the stronger claim
        if (donor && !(plans[d].priority * held[*donor] < plans[*donor].priority * held[d])) continue;
        bool spare = false;
        for (std::size_t r = 0; r < plans[d].requests.size(); ++r) spare |= targets[d][r] > plans[d].requests[r].min_replicas;
        if (spare) donor = d;
      }
      if (!donor) break;
      // Its least preferred variant with a replica above its minimum.
      for (std::size_t r = plans[*donor].requests.size(); r-- > 0;) {
        if (targets[*donor][r] > plans[*donor].requests[r].min_replicas) {
          --targets[*donor][r];
          --held[*donor];
          trial_used -= plans[*donor].requests[r].gpus_per_replica;
          taken.emplace_back(*donor, r);
          break;
        }
      }
    }
    if (trial_used + gpus > gpu_budget) {
      for (const auto& [d, r] : taken) {
        ++targets[d][r];
        ++held[d];
      }
      continue;
    }
    for (const auto& [d, r] : taken) reclaimed_by[d] = w.plan;
    used = trial_used + gpus;
    ++targets[w.plan][w.request];
    ++held[w.plan];
    took[w.plan] = true;
  }

  std::vector<Decision> out;
  for (std::size_t p = 0; p < plans.size(); ++p) {
    for (std::size_t r = 0; r < plans[p].requests.size(); ++r) {
      const ScalingRequest& req = plans[p].requests[r].request;
      Decision d = to_decision(plans[p].model, req);
      d.target_replicas = targets[p][r];
      if (d.target_replicas < std::min(req.current_replicas, req.target_replicas)) {
        d.reason = reclaimed_reason(req, d.target_replicas, plans[p], plans[*reclaimed_by[p]], gpu_budget);
      } else if (d.target_replicas < req.target_replicas) {
        d.reason = limited_reason(req, d.target_replicas, plans[p].requests[r].gpus_per_replica, gpu_budget, used);
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace capstan
