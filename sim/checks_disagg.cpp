// Scenario checks for prefill/decode disaggregation (scenario_checks.hpp): the failure
// users report is one role scaled while the other is left behind, and a prefill:decode
// ratio that drifts out of what the hardware and the request mix need.
#include "sim/scenario_check_family.hpp"

#include "domain/stages/pd_ratio.hpp"

namespace capstan::sim::checks {
namespace {

constexpr double kRatioSlack = 1e-9;  // a ratio on a bound is inside it

// Replicas (pending, loading, ready) of one role of the run at one tick.
int role_replicas(const TickRecord& t, const std::vector<const VariantConfig*>& variants, Role role) {
  int n = 0;
  for (std::size_t i = 0; i < t.replicas.size() && i < variants.size(); ++i)
    if (variants[i]->role == role) n += t.replicas[i];
  return n;
}

// Roles (prefill, decode) whose replica count rose from one tick to the next at least once.
double roles_scaled(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  double roles = 0;
  for (Role role : {Role::kPrefill, Role::kDecode}) {
    for (std::size_t k = 1; k < c.run.series.size(); ++k) {
      if (role_replicas(c.run.series[k], variants, role) > role_replicas(c.run.series[k - 1], variants, role)) {
        ++roles;
        break;
      }
    }
  }
  return roles;
}

// Ticks at which, for some model with both roles, the targets the policy set (its
// replicas where it set none, clamped to each variant's bounds as the fleet applies
// them) put prefill / decode outside the scenario's pd_band. Not measurable without a
// band.
double pd_ratio_outside_band(const CheckSpec&, const CheckContext& c) {
  const RatioBand& band = c.scenario.policy.pd_band;
  if (!enabled(band) || validate(band)) return kNaN;
  const auto variants = run_variants(c);
  double ticks = 0;
  for (const TickRecord& t : c.run.series) {
    if (t.decisions.empty()) continue;
    const std::vector<int> targets = targets_after(t, c, variants);
    bool outside = false;
    for (const ModelRun& m : c.run.models) {
      int prefill = 0, decode = 0;
      for (std::size_t i = m.first_variant; i < m.first_variant + m.variant_count && i < targets.size(); ++i) {
        if (variants[i]->role == Role::kPrefill) prefill += targets[i];
        if (variants[i]->role == Role::kDecode) decode += targets[i];
      }
      if (decode == 0) continue;
      const double ratio = static_cast<double>(prefill) / decode;
      if (ratio < band.min_prefill_per_decode - kRatioSlack ||
          (band.max_prefill_per_decode > 0 && ratio > band.max_prefill_per_decode + kRatioSlack))
        outside = true;
    }
    if (outside) ++ticks;
  }
  return ticks;
}

}  // namespace

std::vector<Entry> disagg_checks() {
  return {
      {{"roles_scaled", Bound::kAtLeast, {}, {},
        "roles (prefill, decode) whose replica count rose from one tick to the next at least once"}, roles_scaled},
      {{"pd_ratio_outside_band", Bound::kAtMost, {}, {},
        "ticks whose targets put a model's prefill:decode replica ratio outside the scenario's policy.pd_band"},
       pd_ratio_outside_band},
  };
}

}  // namespace capstan::sim::checks
