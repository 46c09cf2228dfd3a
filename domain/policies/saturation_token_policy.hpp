// `saturation-token`: llm-d WVA's token-based saturation analyzer as a policy (seed 002,
// "saturation-token-based"): per role, token demand against min(k1, k2) token capacity
// gives required / spare tokens; the cost-aware optimizer places them; the shared
// finisher applies the enforcer and the GPU budget. The analyzer's memory between ticks
// (k2 history, remembered capacity) is this policy's state.
#pragma once

#include <memory>
#include <string>

#include "domain/policies/policy.hpp"
#include "domain/model/saturation_token.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {

class SaturationTokenPolicy : public Policy {
 public:
  explicit SaturationTokenPolicy(const PolicyConfig& config) : config_(config) {}
  std::string name() const override { return "saturation-token"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  PolicyConfig config_;
  TokenSaturationConfig analyzer_;
  std::map<std::string, TokenCapacityState> capacity_;  // by model key
  FinisherState finisher_;
};

std::unique_ptr<Policy> make_saturation_token_policy(const PolicyConfig& config);

}  // namespace capstan
