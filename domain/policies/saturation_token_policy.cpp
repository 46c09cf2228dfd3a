#include "domain/policies/saturation_token_policy.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "domain/stages/cost_aware_optimizer.hpp"

namespace capstan {

std::vector<Decision> SaturationTokenPolicy::tick(const TickInput& input) {
  std::vector<ModelRequests> wishes;
  for (const ModelTickInput& m : input.models) {
    std::vector<TokenVariantInput> variants;
    for (const VariantTickInput& v : m.variants) {
      variants.push_back({v.state, {v.state.spec.kv_capacity_tokens,
                                    static_cast<double>(v.state.spec.max_num_batched_tokens)}});
    }
    TokenCapacityState& memory = capacity_[model_id_key(m.model)];
    auto step = analyze_saturation_token(variants, EppQueue{m.upstream_queue, 0, 0}, analyzer_, memory);
    ModelRequests mr{&m, {}};
    if (step) {
      memory = step->state;
      // One request per variant, in the model's order, from whichever role's signal holds it.
      const auto per_role = optimize_cost_aware(step->analysis.signals);
      for (const VariantTickInput& v : m.variants) {
        auto it = std::find_if(per_role.begin(), per_role.end(),
                               [&](const ScalingRequest& r) { return r.variant == v.state.spec.name; });
        mr.requests.push_back(it != per_role.end()
                                  ? *it
                                  : hold(v.state.spec.name, v.state.current_replicas, ReasonCode::kNoCapacityData,
                                         "hold at " + std::to_string(v.state.current_replicas) +
                                             ": no token capacity known"));
      }
    } else {
      for (const VariantTickInput& v : m.variants) {
        mr.requests.push_back(hold(v.state.spec.name, v.state.current_replicas, ReasonCode::kHold,
                                   "hold at " + std::to_string(v.state.current_replicas) + ": " +
                                       step.error().message));
      }
    }
    wishes.push_back(std::move(mr));
  }
  return finish_tick(wishes, config_, input.now_s, input.interval_s, finisher_);
}

nlohmann::json SaturationTokenPolicy::save_state() const {
  return {{"capacity", capacity_}, {"finisher", finisher_}};
}

Result<bool> SaturationTokenPolicy::restore_state(const nlohmann::json& state) {
  try {
    auto capacity = state.at("capacity").get<std::map<std::string, TokenCapacityState>>();
    auto finisher = state.at("finisher").get<FinisherState>();
    capacity_ = std::move(capacity);
    finisher_ = std::move(finisher);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("saturation-token policy state: ") + e.what());
  }
  return true;
}

std::unique_ptr<Policy> make_saturation_token_policy(const PolicyConfig& config) {
  return std::make_unique<SaturationTokenPolicy>(config);
}

}  // namespace capstan
