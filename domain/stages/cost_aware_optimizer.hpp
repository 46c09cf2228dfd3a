// WVA's cost-aware optimizer, the unlimited mode (seed 002, "Optimizer"): each model, or
// each role of a prefill/decode split, on its own. Required capacity goes to the most
// cost-efficient variant -- lowest cost per unit of per-replica capacity -- as
// ceil(required / capacity) replicas, spilling to the next variant only past a maximum.
// Spare capacity comes off the most expensive variant first, floor(spare / capacity)
// replicas at a time, never below a variant's minimum, and the cheapest variant keeps one
// replica while it is the last one serving. Variants with no known capacity are skipped.
#pragma once

#include <span>
#include <vector>

#include "domain/model/capacity_signal.hpp"
#include "domain/core/decision.hpp"

namespace capstan {

// One request per variant of the signal, in the signal's order.
std::vector<ScalingRequest> optimize_cost_aware(const CapacitySignal& signal);

// All roles of one model, concatenated.
std::vector<ScalingRequest> optimize_cost_aware(std::span<const CapacitySignal> signals);

}  // namespace capstan
