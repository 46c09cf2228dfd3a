// The table of policies selectable by name (a new policy adds one line here), and the
// Policy that drives one over a fleet's states.
#include <algorithm>

#include "domain/policies/erlang_policy.hpp"
#include "domain/policies/fixed_policy.hpp"
#include "domain/policies/hpa_policy.hpp"
#include "domain/policies/hybrid_policy.hpp"
#include "domain/policies/load_policy.hpp"
#include "domain/policies/policy.hpp"
#include "domain/codec/state_codec.hpp"
#include "domain/codec/state_msgpack.hpp"
#include "domain/policies/queueing_policy.hpp"
#include "domain/policies/saturation_policy.hpp"
#include "domain/policies/saturation_token_policy.hpp"
#include "domain/policies/throughput_policy.hpp"

namespace capstan {

const std::vector<PolicyInfo>& registered_policies() {
  static const std::vector<PolicyInfo> policies{
      // {name, one-line description, factory}
      {"hybrid", "capstan default: forecast at the learned cold-start horizon, learned queue model with a TTFT tail bound, cost-aware mix", [] { return hybrid_policy(); }},
      {"fixed", "static provisioning: holds every variant at its initial replica count", [] { return fixed_policy(); }},
      {"throughput", "Dynamo SLA planner: predicted load over per-replica capacity at the SLO sets a floor; the load loop acts above it", [] { return throughput_policy(); }},
      {"load", "Dynamo load loop: +/-1 when every engine's regressed TTFT/ITL is above the SLO / below it x 0.8", [] { return load_policy(); }},
      {"saturation", "llm-d WVA default: KV-cache (0.80) and queue (5) saturation, +1 on the cheapest / -1 on the dearest variant", [] { return saturation_policy(); }},
      {"saturation-token", "llm-d WVA token saturation: min(k1 memory, k2 compute) token capacity per role, cost-aware placement", [] { return saturation_token_policy(); }},
      {"queueing", "llm-d WVA queueing model: EKF-learned lambda* at the SLO, cost-aware variant choice, WVA enforcer", [] { return queueing_policy(); }},
      {"erlang", "Inferscale: Holt forecast at the cold-start horizon, Erlang-C M/M/k tail bound, warm-pool cost minimisation", [] { return erlang_policy(); }},
      {"hpa", "Kubernetes HPA baseline on running + waiting requests per replica (10% tolerance, 300 s down-stabilization)", [] { return hpa_policy(); }},
  };
  return policies;
}

Result<std::shared_ptr<const TickPolicy>> find_policy(const std::string& name) {
  const auto& all = registered_policies();
  auto it = std::find_if(all.begin(), all.end(), [&](const PolicyInfo& p) { return p.name == name; });
  if (it == all.end()) {
    std::string known;
    for (const PolicyInfo& p : all) known += (known.empty() ? "" : ", ") + p.name;
    return invalid_argument("unknown policy \"" + name + "\"; known policies: " + known);
  }
  return it->make();
}

Result<std::unique_ptr<Policy>> make_policy(const std::string& name, const PolicyConfig& config) {
  auto policy = find_policy(name);
  if (!policy) return policy.error();
  return std::unique_ptr<Policy>(std::make_unique<DrivenPolicy>(std::move(policy).value(), config));
}

std::vector<Decision> DrivenPolicy::tick(const TickInput& input) {
  TickResult result = run_tick(std::move(memory_), *policy_, input, config_);
  memory_ = std::move(result.next);
  events_ = std::move(result.events);
  return std::move(result.decisions);
}

nlohmann::json DrivenPolicy::save_state() const { return encode_fleet_memory(policy_->name(), memory_); }

Result<bool> DrivenPolicy::restore_state(const nlohmann::json& state) {
  auto memory = decode_fleet_memory(policy_->name(), state);
  if (!memory) return memory.error();
  memory_ = std::move(memory).value();
  return true;
}

std::vector<std::uint8_t> DrivenPolicy::save_state_msgpack() const {
  return encode_fleet_memory_msgpack(policy_->name(), memory_);
}

Result<bool> DrivenPolicy::restore_state_msgpack(std::span<const std::uint8_t> bytes) {
  auto memory = decode_fleet_memory_msgpack(policy_->name(), bytes);
  if (!memory) return memory.error();
  memory_ = std::move(memory).value();
  return true;
}

}  // namespace capstan
