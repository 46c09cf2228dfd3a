// Scenario checks for a shared GPU budget (scenario_checks.hpp).
#include "sim/scenario_check_family.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim::checks {
namespace {

// Most GPUs held at once above the budget (negative: never reached it).
double budget_exceeded_gpus(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  int most = 0;
  for (const TickRecord& t : c.run.series) most = std::max(most, gpus_held(t, variants));
  return static_cast<double>(most - c.scenario.gpu_budget);
}

// Decisions with reason code budget_limited in ticks whose targets leave less than one
// replica of the variant free below the budget: a budget reason that is true.
double budget_blocked_reasons(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  double count = 0;
  for (const TickRecord& t : c.run.series) {
    const std::vector<int> targets = targets_after(t, c, variants);
    int gpus = 0;
    for (std::size_t i = 0; i < targets.size() && i < variants.size(); ++i)
      gpus += targets[i] * variants[i]->gpus_per_replica;
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (d.reason.code == ReasonCode::kBudgetLimited && i < variants.size() &&
          c.scenario.gpu_budget - gpus < variants[i]->gpus_per_replica)
        ++count;
    }
  }
  return count;
}

// Of the replicas scale-ups added (raises to a variant's minimum aside), the share
// placed on a variant while another variant of the same model, cheaper per unit of
// sustainable capacity at the SLO, still had room below its maximum after that tick.
// A variant that sustains nothing at the SLO is the dearest of all. 0 with no scale-up.
double spillover_off_cheapest(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  if (c.sustainable_rps.size() != variants.size()) return kNaN;
  std::vector<double> cost_per_rps;
  for (std::size_t i = 0; i < variants.size(); ++i)
    cost_per_rps.push_back(c.sustainable_rps[i] > 0 ? variants[i]->cost_per_replica_hour / c.sustainable_rps[i] : kInf);
  double added = 0, off = 0;
  for (const TickRecord& t : c.run.series) {
    const std::vector<int> targets = targets_after(t, c, variants);
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (i >= variants.size() || i >= t.replicas.size() || d.reason.code == ReasonCode::kMinReplicas) continue;
      const int more = targets[i] - t.replicas[i];
      if (more <= 0) continue;
      added += more;
      for (std::size_t u = 0; u < variants.size(); ++u)
        // Only a variant that could have served the same requests: same model, same role
        // (a prefill replica is no alternative to a decode one).
        if (c.run.variant_model[u] == c.run.variant_model[i] && variants[u]->role == variants[i]->role &&
            cost_per_rps[u] < cost_per_rps[i] && targets[u] < variants[u]->max_replicas) {
          off += more;
          break;
        }
    }
  }
  return added > 0 ? off / added : 0;
}

}  // namespace

std::vector<Entry> budget_checks() {
  return {
      {{"budget_exceeded_gpus", Bound::kAtMost, {}, {},
        "most GPUs held at once (pending, loading, ready) minus gpu_budget", true}, budget_exceeded_gpus},
      {{"budget_blocked_reasons", Bound::kAtLeast, {}, {},
        "decisions with reason budget_limited while the targets leave less than a replica free below gpu_budget",
        true}, budget_blocked_reasons},
      {{"spillover_off_cheapest", Bound::kAtMost, {}, {},
        "share of scale-up replicas placed while a variant of the model and role cheaper per sustainable req/s had room",
        false, false, true}, spillover_off_cheapest},
  };
}

}  // namespace capstan::sim::checks
