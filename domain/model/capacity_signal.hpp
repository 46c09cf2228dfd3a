// What a capacity analyzer hands an optimizer for one model, or for one role of a
// prefill/decode split (seed 002, "Pipeline stages": analyzers quantify how much
// capacity is needed or can be freed, optimizers choose replicas). Quantities are in
// the analyzer's own unit -- tokens for saturation-token -- and only compared with each
// other, never across analyzers.
#pragma once

#include <string>
#include <vector>

#include "domain/core/types.hpp"

namespace capstan {

// One variant as an optimizer sees it.
struct VariantSupply {
  std::string variant;
  double per_replica_capacity = 0;  // 0 when nothing is known about it
  double cost_per_replica = 0;
  int current_replicas = 0;
  int pending_replicas = 0;
  int min_replicas = 0;
  int max_replicas = 0;
  int gpus_per_replica = 1;
};

struct CapacitySignal {
  Role role = Role::kBoth;
  std::string unit;            // e.g. "tokens"
  double supply = 0;           // capacity of the ready replicas
  double demand = 0;
  double required = 0;         // > 0: add this much capacity
  double spare = 0;            // > 0: this much can be released
  // WVA releases from the most expensive variant per replica; capstan's hybrid from the
  // one with the highest cost per unit of capacity.
  bool release_least_efficient_first = false;
  // > 0: a variant whose capacity per unit of cost is below this fraction of the most
  // cost-efficient variant's is not bought for capacity (capstan's hybrid, issue 22: 8
  // A100 replicas sustaining 0.15 req/s each were bought beside H100s at their maximum).
  double useful_fraction = 0;
  std::vector<VariantSupply> variants;
};

}  // namespace capstan
