// The registered policies, and a policy with its states for callers that run one
// policy over a whole fleet at a time (`simulate`, `scenarios`, the tests).
//
// Each policy is a TickPolicy (domain/tick/tick_policy.hpp): learn, plan and allocate as
// value functions, holding nothing between ticks. A Policy carries the states those
// functions pass along (FleetMemory) and drives them with the one tick driver
// (tick_driver.hpp); save_state() returns all of them, versioned, and restore_state()
// puts them back all or nothing, so a restart or a replay resumes bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"
#include "domain/tick/policy_config.hpp"
#include "domain/tick/tick_driver.hpp"
#include "domain/tick/tick_input.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan {

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // One decision per variant of every model in the input, in input order.
  virtual std::vector<Decision> tick(const TickInput& input) = 0;
  virtual nlohmann::json save_state() const = 0;
  virtual Result<bool> restore_state(const nlohmann::json& state) = 0;
};

// A registered policy over the states of a fleet, ticked by run_tick.
class DrivenPolicy : public Policy {
 public:
  DrivenPolicy(std::shared_ptr<const TickPolicy> policy, PolicyConfig config)
      : policy_(std::move(policy)), config_(std::move(config)) {}
  std::string name() const override { return policy_->name(); }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  // Refuses a state of another policy, of an unknown schema version or with any
  // malformed field (named in the error), and then keeps the states it had.
  Result<bool> restore_state(const nlohmann::json& state) override;
  // The same state as MessagePack bytes, written and read without the JSON tree
  // (state_msgpack.hpp): the bytes are to_msgpack(save_state()).
  std::vector<std::uint8_t> save_state_msgpack() const;
  Result<bool> restore_state_msgpack(std::span<const std::uint8_t> bytes);

  const FleetMemory& memory() const { return memory_; }
  // What the last tick learned and decided (tick_driver.hpp has their order).
  const std::vector<TickEvent>& last_events() const { return events_; }

 private:
  std::shared_ptr<const TickPolicy> policy_;
  PolicyConfig config_;
  FleetMemory memory_;
  std::vector<TickEvent> events_;
};

struct PolicyInfo {
  std::string name;
  std::string description;
  std::shared_ptr<const TickPolicy> (*make)();
};

// Every registered policy, in a stable order (policy_registry.cpp).
const std::vector<PolicyInfo>& registered_policies();

// Errors naming the unknown policy and listing the known ones.
Result<std::shared_ptr<const TickPolicy>> find_policy(const std::string& name);
Result<std::unique_ptr<Policy>> make_policy(const std::string& name, const PolicyConfig& config);

}  // namespace capstan
