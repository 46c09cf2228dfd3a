// The simulated fleet's configuration, loaded from YAML (ops/examples/fleet.yaml):
// one model, its variants (hardware profile, cost, replica bounds, vLLM engine limits),
// and the client timeout. Each variant names a hardware profile; profiles are read
// from `profiles_dir` (relative to the fleet file). Errors name the file, the key and
// the rule broken; an unknown (e.g. misspelt) key is an error, as in scenarios.
//
// Disaggregation: variants with `role: prefill` and `role: decode` serve one model
// split in two (fleet.hpp); such a fleet needs at least one of each and no `both`
// variant, and `kv_transfer: {fixed_ms, gbps, bytes_per_token}` sets the hand-off
// latency (kv_transfer.hpp; defaults there, for Llama-2-70B).
#pragma once

#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"
#include "sim/cost_model.hpp"
#include "sim/kv_transfer.hpp"
#include "sim/model_server.hpp"

namespace capstan::sim {

struct VariantConfig {
  std::string name;
  std::string profile_name;
  HardwareProfile profile;
  double cost_per_replica_hour = 1.0;
  int gpus_per_replica = 1;
  double pending_s = 0;      // scheduling delay before the model starts loading
  double cold_start_s = 0;   // loading time: from loading to ready
  int initial_replicas = 0;  // ready at time 0
  int min_replicas = 0;
  int max_replicas = 100;
  ServerConfig server;
  Role role = Role::kBoth;
};

struct FleetConfig {
  std::string model;
  double client_timeout_s = 0;  // 0 = clients never give up
  // What the operator's HPA targets per replica (running + waiting requests), as in its
  // manifest; 0 = not set (the hpa policy's default, or the scenario's, applies).
  double hpa_target_per_replica = 0;
  std::vector<VariantConfig> variants;
  KvTransferConfig kv_transfer;  // used only when the fleet is disaggregated

  const VariantConfig* find(const std::string& variant) const;
  // Some variant has role prefill or decode.
  bool disaggregated() const;
};

Result<FleetConfig> load_fleet_config(const std::string& path);

// The autoscaler's view of a variant.
VariantSpec to_variant_spec(const VariantConfig& variant);

}  // namespace capstan::sim
