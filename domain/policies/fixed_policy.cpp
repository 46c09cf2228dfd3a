// Static provisioning; see fixed_policy.hpp.
#include "domain/policies/fixed_policy.hpp"

namespace capstan {

namespace {
std::string key_of(const ModelKey& model, const std::string& variant) {
  return model.ns + "/" + model.model_id + "/" + variant;
}
}  // namespace

std::vector<Decision> FixedPolicy::tick(const TickInput& input) {
  std::vector<Decision> out;
  for (const ModelTickInput& model : input.models) {
    for (const VariantTickInput& v : model.variants) {
      const int current = v.state.current_replicas;
      const int held = held_.try_emplace(key_of(model.model, v.state.spec.name), current).first->second;
      out.push_back({model.model, v.state.spec.name, current, held,
                     {ReasonCode::kHold, "hold at " + std::to_string(held) + ": static provisioning"}});
    }
  }
  return out;
}

nlohmann::json FixedPolicy::save_state() const { return {{"held", held_}}; }

Result<bool> FixedPolicy::restore_state(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("held") || !state["held"].is_object())
    return invalid_argument("fixed policy state must be an object with \"held\", got " + state.dump());
  std::map<std::string, int> held;
  for (const auto& [key, value] : state["held"].items()) {
    if (!value.is_number_integer() || value.get<int>() < 0)
      return invalid_argument("fixed policy state: held[\"" + key + "\"] must be an integer >= 0, got " +
                              value.dump());
    held[key] = value.get<int>();
  }
  held_ = std::move(held);
  return true;
}

std::unique_ptr<Policy> make_fixed_policy(const PolicyConfig&) { return std::make_unique<FixedPolicy>(); }

}  // namespace capstan
