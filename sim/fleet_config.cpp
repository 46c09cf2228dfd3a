// Fleet configuration loading and validation; see fleet_config.hpp.
#include "sim/fleet_config.hpp"

#include <filesystem>
#include <set>

#include "domain/core/role_mix.hpp"
#include "sim/yaml_fields.hpp"

namespace capstan::sim {

const VariantConfig* FleetConfig::find(const std::string& variant) const {
  for (const auto& v : variants)
    if (v.name == variant) return &v;
  return nullptr;
}

bool FleetConfig::disaggregated() const {
  for (const auto& v : variants)
    if (v.role != Role::kBoth) return true;
  return false;
}

Result<FleetConfig> load_fleet_config(const std::string& path) {
  auto doc = load_yaml_file(path);
  if (!doc.ok()) return doc.error();
  const YAML::Node root = doc.value();
  YamlFields top(path, root);
  FleetConfig fleet;
  std::string profiles_dir = "profiles";
  reject_unknown_keys(top, root,
                      {"model", "profiles_dir", "client_timeout_s", "hpa_target_per_replica", "kv_transfer", "variants"});
  top.required_string("model", fleet.model);
  top.optional_string("profiles_dir", profiles_dir);
  top.optional_double("client_timeout_s", fleet.client_timeout_s, 0, 1e9);
  top.optional_double("hpa_target_per_replica", fleet.hpa_target_per_replica, 0.001, 1e6);
  if (!top.ok()) return top.error();
  if (const YAML::Node kv = root["kv_transfer"]) {
    if (!kv.IsMap()) return invalid_argument(path + ": kv_transfer must be a mapping (fixed_ms, gbps, bytes_per_token)");
    YamlFields f(path, kv, "kv_transfer.");
    reject_unknown_keys(f, kv, {"fixed_ms", "gbps", "bytes_per_token"});
    f.optional_double("fixed_ms", fleet.kv_transfer.fixed_ms, 0, 1e6);
    f.optional_double("gbps", fleet.kv_transfer.gbps, 1e-6, 1e6);
    f.optional_double("bytes_per_token", fleet.kv_transfer.bytes_per_token, 1, 1e9);
    if (!f.ok()) return f.error();
  }
  if (!root["variants"] || !root["variants"].IsSequence() || root["variants"].size() == 0)
    return invalid_argument(path + ": variants must be a non-empty list");
  const auto base = std::filesystem::path(path).parent_path();
  const auto dir = std::filesystem::path(profiles_dir).is_absolute() ? std::filesystem::path(profiles_dir)
                                                                       : base / profiles_dir;
  std::set<std::string> names;
  for (std::size_t i = 0; i < root["variants"].size(); ++i) {
    const std::string prefix = "variants[" + std::to_string(i) + "].";
    YamlFields f(path, root["variants"][i], prefix);
    VariantConfig v;
    std::string role = "both";
    reject_unknown_keys(f, root["variants"][i],
                        {"name", "profile", "cost_per_replica_hour", "gpus_per_replica", "pending_s", "cold_start_s",
                         "min_replicas", "max_replicas", "initial_replicas", "max_num_seqs", "max_num_batched_tokens",
                         "num_gpu_blocks", "block_size", "role"});
    f.required_string("name", v.name);
    f.required_string("profile", v.profile_name);
    f.required_double("cost_per_replica_hour", v.cost_per_replica_hour, 0, 1e6);
    f.optional_int("gpus_per_replica", v.gpus_per_replica, 1, 1024);
    f.optional_double("pending_s", v.pending_s, 0, 1e6);
    f.required_double("cold_start_s", v.cold_start_s, 0, 1e6);
    f.optional_int("min_replicas", v.min_replicas, 0, 100000);
    f.optional_int("max_replicas", v.max_replicas, 0, 100000);
    f.optional_int("initial_replicas", v.initial_replicas, 0, 100000);
    f.optional_int("max_num_seqs", v.server.max_num_seqs, 1, 1 << 20);
    f.optional_int("max_num_batched_tokens", v.server.max_num_batched_tokens, 1, 1 << 24);
    f.required_int("num_gpu_blocks", v.server.num_gpu_blocks, 1, 1 << 30);
    f.optional_int("block_size", v.server.block_size, 1, 1 << 16);
    f.optional_string("role", role);
    if (f.ok() && !parse_role(role, v.role))
      f.fail("role", "must be one of both, prefill, decode, got '" + role + "'");
    if (f.ok() && v.min_replicas > v.max_replicas)
      f.fail("min_replicas", "must be <= max_replicas (" + std::to_string(v.max_replicas) +
                                 "), got " + std::to_string(v.min_replicas));
    if (f.ok() && (v.initial_replicas < v.min_replicas || v.initial_replicas > v.max_replicas))
      f.fail("initial_replicas", "must be within [min_replicas, max_replicas], got " +
                                     std::to_string(v.initial_replicas));
    if (f.ok() && !names.insert(v.name).second) f.fail("name", "must be unique, got '" + v.name + "' twice");
    if (!f.ok()) return f.error();
    auto profile = load_profile((dir / (v.profile_name + ".yaml")).string());
    if (!profile.ok())
      return invalid_argument(path + ": " + prefix + "profile '" + v.profile_name +
                              "' cannot be loaded: " + profile.error().message);
    v.profile = profile.value();
    v.server.client_timeout_s = fleet.client_timeout_s;
    fleet.variants.push_back(std::move(v));
  }
  std::vector<Role> roles;
  for (const VariantConfig& v : fleet.variants) roles.push_back(v.role);
  if (auto error = check_role_mix(roles)) return invalid_argument(path + ": " + error->message);
  return fleet;
}

VariantSpec to_variant_spec(const VariantConfig& v) {
  VariantSpec spec;
  spec.name = v.name;
  spec.max_batch_size = v.server.max_num_seqs;
  spec.cost_per_replica = v.cost_per_replica_hour;
  spec.gpus_per_replica = v.gpus_per_replica;
  spec.min_replicas = v.min_replicas;
  spec.max_replicas = v.max_replicas;
  spec.role = v.role;
  spec.kv_capacity_tokens = static_cast<double>(v.server.num_gpu_blocks) * v.server.block_size;
  spec.max_num_batched_tokens = v.server.max_num_batched_tokens;
  return spec;
}

}  // namespace capstan::sim
