// `fixed`: static provisioning, the baseline every autoscaler is compared with. Each
// variant is held at the replica count it had at the first tick this policy saw (in
// the simulator, the fleet's configured initial replicas), whatever the load: the
// decision is always a hold, "hold at N: static provisioning". The remembered counts
// are the policy's whole state.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "domain/policies/policy.hpp"

namespace capstan {

class FixedPolicy : public Policy {
 public:
  std::string name() const override { return "fixed"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  // "<namespace>/<model>/<variant>" -> replicas to hold.
  std::map<std::string, int> held_;
};

std::unique_ptr<Policy> make_fixed_policy(const PolicyConfig& config);

}  // namespace capstan
