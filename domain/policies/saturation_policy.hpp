// `saturation`: llm-d WVA's default, percentage-based saturation analyzer as a policy
// (seed 002, "saturation-percentage-based"): KV-cache and queue saturation of the ready
// replicas add one replica on the cheapest variant or remove one from the most
// expensive; the shared finisher applies the enforcer and the GPU budget.
#pragma once

#include <memory>
#include <string>

#include "domain/policies/policy.hpp"
#include "domain/model/saturation.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {

class SaturationPolicy : public Policy {
 public:
  explicit SaturationPolicy(const PolicyConfig& config) : config_(config) {}
  std::string name() const override { return "saturation"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  PolicyConfig config_;
  SaturationConfig saturation_;
  FinisherState finisher_;
};

std::unique_ptr<Policy> make_saturation_policy(const PolicyConfig& config);

}  // namespace capstan
