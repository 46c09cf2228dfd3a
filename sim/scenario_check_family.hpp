// What the scenario checks' families share (scenario_checks.hpp has the catalogue):
// the entry type each family contributes, and the readings of a run every family
// makes. Internal to sim/: the checks' users go through scenario_checks.hpp.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/scenario_checks.hpp"

namespace capstan::sim::checks {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

using Evaluate = std::function<double(const CheckSpec&, const CheckContext&)>;

struct Entry {
  CheckInfo info;
  Evaluate evaluate;
};

// One family per failure mode users report (the catalogue in scenario_checks.hpp).
std::vector<Entry> stability_checks();  // oscillation and idle GPUs
std::vector<Entry> latency_checks();    // bursts and slow starts
std::vector<Entry> metric_gap_checks();
std::vector<Entry> budget_checks();
std::vector<Entry> overall_checks();
std::vector<Entry> disagg_checks();     // prefill/decode splits

inline double param(const CheckSpec& spec, const std::string& key, double fallback) {
  auto it = spec.params.find(key);
  return it == spec.params.end() ? fallback : it->second;
}

inline int total(const std::vector<int>& counts) {
  int n = 0;
  for (int c : counts) n += c;
  return n;
}

// Every variant's configuration in run order (PolicyRun::variants).
inline std::vector<const VariantConfig*> run_variants(const CheckContext& c) {
  std::vector<const VariantConfig*> out;
  for (const FleetConfig& f : c.fleets)
    for (const VariantConfig& v : f.variants) out.push_back(&v);
  return out;
}

// GPUs held by the replicas of a tick record (draining excluded; see the header).
inline int gpus_held(const TickRecord& t, const std::vector<const VariantConfig*>& variants) {
  int gpus = 0;
  for (std::size_t i = 0; i < t.replicas.size() && i < variants.size(); ++i)
    gpus += t.replicas[i] * variants[i]->gpus_per_replica;
  return gpus;
}

// The run's report, or model `model`'s own when the check names one.
inline const RunReport& report_of(const CheckSpec& spec, const CheckContext& c) {
  auto it = spec.params.find("model");
  if (it == spec.params.end()) return c.run.report;
  return c.run.models.at(static_cast<std::size_t>(it->second)).report;
}

// Each variant's target after a tick's decisions (its replicas where none decided),
// clamped to the variant's bounds as the fleet applies it.
inline std::vector<int> targets_after(const TickRecord& t, const CheckContext& c,
                               const std::vector<const VariantConfig*>& variants) {
  std::vector<int> out = t.replicas;
  for (const Decision& d : t.decisions) {
    const std::size_t i = variant_index(c.run, d);
    if (i < out.size()) out[i] = std::clamp(d.target_replicas, variants[i]->min_replicas, variants[i]->max_replicas);
  }
  return out;
}

}  // namespace capstan::sim::checks
