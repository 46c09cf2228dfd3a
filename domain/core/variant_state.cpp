#include "domain/core/variant_state.hpp"

#include <algorithm>

namespace capstan {

int ready_replicas(const VariantState& variant) {
  return std::max(variant.current_replicas - variant.pending_replicas, 0);
}

bool in_flight(const VariantState& variant) {
  return variant.desired_replicas.has_value() &&
         *variant.desired_replicas != variant.current_replicas;
}

const VariantState* cheapest(std::span<const VariantState> variants,
                             const std::function<bool(const VariantState&)>& eligible) {
  const VariantState* best = nullptr;
  for (const auto& v : variants) {
    if (!eligible(v)) continue;
    if (best == nullptr || v.spec.cost_per_replica < best->spec.cost_per_replica ||
        (v.spec.cost_per_replica == best->spec.cost_per_replica && v.spec.name < best->spec.name)) {
      best = &v;
    }
  }
  return best;
}

const VariantState* most_expensive(std::span<const VariantState> variants,
                                   const std::function<bool(const VariantState&)>& eligible) {
  const VariantState* best = nullptr;
  for (const auto& v : variants) {
    if (!eligible(v)) continue;
    if (best == nullptr || v.spec.cost_per_replica > best->spec.cost_per_replica ||
        (v.spec.cost_per_replica == best->spec.cost_per_replica && v.spec.name > best->spec.name)) {
      best = &v;
    }
  }
  return best;
}

const VariantState* find_variant(std::span<const VariantState> variants, const std::string& name) {
  for (const auto& v : variants) {
    if (v.spec.name == name) return &v;
  }
  return nullptr;
}

}  // namespace capstan
