// The table of policies selectable by name. A new policy adds one line here.
#include <algorithm>

#include "domain/policies/erlang_policy.hpp"
#include "domain/policies/fixed_policy.hpp"
#include "domain/policies/hpa_policy.hpp"
#include "domain/policies/hybrid_policy.hpp"
#include "domain/policies/load_policy.hpp"
#include "domain/policies/policy.hpp"
#include "domain/policies/queueing_policy.hpp"
#include "domain/policies/saturation_policy.hpp"
#include "domain/policies/saturation_token_policy.hpp"
#include "domain/policies/throughput_policy.hpp"

namespace capstan {

const std::vector<PolicyInfo>& registered_policies() {
  static const std::vector<PolicyInfo> policies{
      // {name, one-line description, factory}
      {"hybrid", "capstan default: forecast at the learned cold-start horizon, learned queue model with a TTFT tail bound, cost-aware mix", make_hybrid_policy},
      {"fixed", "static provisioning: holds every variant at its initial replica count", make_fixed_policy},
      {"throughput", "Dynamo SLA planner: predicted load over per-replica capacity at the SLO sets a floor; the load loop acts above it", make_throughput_policy},
      {"load", "Dynamo load loop: +/-1 when every engine's regressed TTFT/ITL is above the SLO / below it x 0.8", make_load_policy},
      {"saturation", "llm-d WVA default: KV-cache (0.80) and queue (5) saturation, +1 on the cheapest / -1 on the dearest variant", make_saturation_policy},
      {"saturation-token", "llm-d WVA token saturation: min(k1 memory, k2 compute) token capacity per role, cost-aware placement", make_saturation_token_policy},
      {"queueing", "llm-d WVA queueing model: EKF-learned lambda* at the SLO, cost-aware variant choice, WVA enforcer", make_queueing_policy},
      {"erlang", "Inferscale: Holt forecast at the cold-start horizon, Erlang-C M/M/k tail bound, warm-pool cost minimisation", make_erlang_policy},
      {"hpa", "Kubernetes HPA baseline on running + waiting requests per replica (10% tolerance, 300 s down-stabilization)", make_hpa_policy},
  };
  return policies;
}

Result<std::unique_ptr<Policy>> make_policy(const std::string& name, const PolicyConfig& config) {
  const auto& all = registered_policies();
  auto it = std::find_if(all.begin(), all.end(), [&](const PolicyInfo& p) { return p.name == name; });
  if (it == all.end()) {
    std::string known;
    for (const PolicyInfo& p : all) known += (known.empty() ? "" : ", ") + p.name;
    return invalid_argument("unknown policy \"" + name + "\"; known policies: " + known);
  }
  return it->make(config);
}

}  // namespace capstan
