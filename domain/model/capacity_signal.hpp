// What a capacity analyzer hands an optimizer for one model, or for one role of a
// prefill/decode split (seed 002, "Pipeline stages": analyzers quantify how much
// capacity is needed or can be freed, optimizers choose replicas). Quantities are in
// the analyzer's own unit -- tokens for saturation-token -- and only compared with each
// other, never across analyzers.
#pragma once

#include <limits>
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
  // What its replicas were measured to do, per replica, in the signal's units (0: not
  // measured): the lowest load at which they missed the SLO and the highest at which
  // they met it, lately and at this request shape (capstan's hybrid). A variant whose
  // missed load costs more per unit than another's met load, where that one has room,
  // is not bought for capacity: by measurement alone the other serves for less.
  double missed_at = 0;
  double met_at = 0;
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
  // Of `spare`, what the ready replicas may give up: a release takes replicas still
  // starting first (the actuator drains those not ready first), and a ready one only
  // while the ready replicas left carry what must be kept (capstan's hybrid; infinite:
  // no such limit).
  double ready_spare = std::numeric_limits<double>::infinity();
  std::vector<VariantSupply> variants;
};

}  // namespace capstan
