// What the Dynamo-family and HPA policies remember per variant between ticks (DESIGN.md
// "Event sourcing": state between ticks is explicit): a map from variant to a policy's
// own state with a JSON form, and the variant's replica bounds as the policies report
// them. The hold on missing metrics is domain/stages/metric_guard.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "domain/core/decision.hpp"
#include "domain/core/types.hpp"

namespace capstan {

// The variant's [min_replicas, max_replicas], with the code that applies if it bit.
struct Bounded {
  int target = 0;
  std::optional<ReasonCode> limited_by;  // kMinReplicas or kMaxReplicas
};
Bounded clamp_to_bounds(int target, const VariantSpec& spec);

// [{"ns", "model_id", "variant", "state"}, ...] in key order.
template <class State>
nlohmann::json variant_map_to_json(const std::map<VariantKey, State>& states) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, state] : states) {
    out.push_back({{"ns", key.model.ns},
                   {"model_id", key.model.model_id},
                   {"variant", key.variant},
                   {"state", state}});
  }
  return out;
}

// Throws nlohmann::json exceptions on a malformed document.
template <class State>
std::map<VariantKey, State> variant_map_from_json(const nlohmann::json& j) {
  std::map<VariantKey, State> out;
  for (const auto& e : j) {
    VariantKey key{{e.at("ns").get<std::string>(), e.at("model_id").get<std::string>()},
                   e.at("variant").get<std::string>()};
    out.emplace(std::move(key), e.at("state").get<State>());
  }
  return out;
}

}  // namespace capstan
