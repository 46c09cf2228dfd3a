// What the pipeline knows about one variant at a tick (seed 002, "Optimizer" and
// "Saturation Analyzer"): its spec, how many replicas it has and how many of those are
// still starting, the last target capstan asked for, and what its ready pods reported.
// Every WVA-family stage (analyzers, optimizers, enforcer) reads this one struct, and
// the choices they share -- which variant is cheapest, which is in flight -- live here.
#pragma once

#include <functional>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include "domain/core/types.hpp"

namespace capstan {

struct VariantState {
  VariantSpec spec;
  int current_replicas = 0;               // replicas the workload has, starting ones included
  int pending_replicas = 0;               // of those, not ready yet
  std::optional<int> desired_replicas;    // last target sent to the actuator, if any
  std::vector<PodMetrics> pods;           // what the pods reported this window
};

// current - pending, never below 0.
int ready_replicas(const VariantState& variant);

// The previous action has not landed: the workload does not yet have the replica count
// capstan last asked for (WVA: desired != current).
bool in_flight(const VariantState& variant);

// Pods that are ready and reported; analyzers read only these. A view of variant.pods,
// as pointers, not a copy: analyzers ask for them a few times a variant a tick, and the
// copies were a vector each time.
inline auto ready_pods(const VariantState& variant) {
  return variant.pods | std::views::filter([](const PodMetrics& p) { return p.ready; }) |
         std::views::transform([](const PodMetrics& p) { return &p; });
}

// The cheapest variant that passes `eligible`, ties broken by name (alphabetically
// first); nullptr when none passes. Cheaper variants scale up first.
const VariantState* cheapest(std::span<const VariantState> variants,
                             const std::function<bool(const VariantState&)>& eligible);

// The most expensive variant that passes `eligible`, ties broken by name (alphabetically
// last); nullptr when none passes. Expensive variants scale down first.
const VariantState* most_expensive(std::span<const VariantState> variants,
                                   const std::function<bool(const VariantState&)>& eligible);

// Finds a variant by name; nullptr when absent.
const VariantState* find_variant(std::span<const VariantState> variants, const std::string& name);

}  // namespace capstan
