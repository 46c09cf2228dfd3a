#include "domain/policies/saturation_policy.hpp"

#include <nlohmann/json.hpp>

namespace capstan {

std::vector<Decision> SaturationPolicy::tick(const TickInput& input) {
  std::vector<ModelRequests> wishes;
  for (const ModelTickInput& m : input.models) {
    std::vector<VariantState> variants;
    for (const VariantTickInput& v : m.variants) variants.push_back(v.state);
    ModelRequests mr{&m, {}};
    auto analysis = analyze_saturation(variants, saturation_);
    if (analysis) {
      mr.requests = analysis->requests;
    } else {
      for (const VariantState& v : variants) {
        mr.requests.push_back(hold(v.spec.name, v.current_replicas, ReasonCode::kHold,
                                   "hold at " + std::to_string(v.current_replicas) + ": " + analysis.error().message));
      }
    }
    wishes.push_back(std::move(mr));
  }
  return finish_tick(wishes, config_, input.now_s, input.interval_s, finisher_);
}

nlohmann::json SaturationPolicy::save_state() const { return {{"finisher", finisher_}}; }

Result<bool> SaturationPolicy::restore_state(const nlohmann::json& state) {
  try {
    finisher_ = state.at("finisher").get<FinisherState>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("saturation policy state: ") + e.what());
  }
  return true;
}

std::unique_ptr<Policy> make_saturation_policy(const PolicyConfig& config) {
  return std::make_unique<SaturationPolicy>(config);
}

}  // namespace capstan
