// The configuration file; see config_file.hpp.
#include "config/config_file.hpp"

#include <filesystem>
#include <set>

#include "config/config_error.hpp"
#include "config/config_keys.hpp"
#include "config/yaml_entries.hpp"
#include "domain/core/role_mix.hpp"

namespace capstan::config {

namespace {

const std::vector<std::string> kModelKeys = {"model_id",       "namespace",      "priority",
                                             "slo",            "slo_attainment", "slo_multiplier",
                                             "scale_to_zero_retention_s", "variants"};
const std::vector<std::string> kVariantKeys = {
    "name",           "scale_target",   "accelerator",   "min_replicas",      "max_replicas",
    "cost_per_replica", "gpus_per_replica", "max_batch_size", "max_queue_size", "kv_capacity_tokens",
    "max_num_batched_tokens", "cold_start_s", "role"};

ValueRule text_rule() { return kind_rule(ValueKind::kText); }

// The file's scalar keys, nested by the dots of their key paths.
void read_settings(const YAML::Node& node, const std::string& prefix, const std::string& path,
                   const std::string& base_dir, LayerValues& out) {
  for (const auto& kv : node) {
    const std::string key = prefix + kv.first.Scalar();
    if (key == "models") continue;
    const std::string label = "file " + path + ": " + key;
    if (kv.second.IsMap()) {
      read_settings(kv.second, key + ".", path, base_dir, out);
      continue;
    }
    if (find_key(key) == nullptr) {
      std::string names;
      for (const ConfigKey& k : config_keys()) names += k.key + ", ";
      fail(label + " is not a known key (known: " + names + "models)");
    }
    out.settings.push_back(make_setting(key, scalar_text(kv.second, label), Layer::kFile, "file " + path, label, base_dir));
  }
}

VariantEntry read_variant(const YamlEntries& v) {
  VariantEntry e;
  e.name = std::get<std::string>(v.required("name", text_rule()));
  e.spec.name = e.name;
  e.scale_target = v.text("scale_target", text_rule()).value_or(e.name);
  e.accelerator = v.text("accelerator", text_rule()).value_or("");
  e.spec.min_replicas = v.integer("min_replicas", integer_rule(0, 100000)).value_or(e.spec.min_replicas);
  e.spec.max_replicas = v.integer("max_replicas", integer_rule(0, 100000)).value_or(e.spec.max_replicas);
  e.spec.cost_per_replica = v.number("cost_per_replica", number_rule(0, 1e9)).value_or(e.spec.cost_per_replica);
  e.spec.gpus_per_replica = v.integer("gpus_per_replica", integer_rule(1, 1024)).value_or(e.spec.gpus_per_replica);
  e.spec.max_batch_size = v.integer("max_batch_size", integer_rule(1, 1 << 20)).value_or(e.spec.max_batch_size);
  e.spec.max_queue_size = v.integer("max_queue_size", integer_rule(0, 1 << 24)).value_or(e.spec.max_queue_size);
  e.spec.kv_capacity_tokens = v.number("kv_capacity_tokens", number_rule(0, 1e12)).value_or(0);
  e.spec.max_num_batched_tokens = v.integer("max_num_batched_tokens", integer_rule(0, 1 << 24)).value_or(0);
  e.cold_start_s = v.number("cold_start_s", duration_rule(0, 86400)).value_or(0);
  if (auto role = v.text("role", choice_rule({"both", "prefill", "decode"})))
    parse_role(*role, e.spec.role);
  if (e.spec.min_replicas > e.spec.max_replicas)
    v.fail("min_replicas", "must be <= max_replicas (" + std::to_string(e.spec.max_replicas) + "), got " +
                               std::to_string(e.spec.min_replicas));
  return e;
}

ModelOverlay read_model(const YamlEntries& m, const std::string& where, const std::string& prefix) {
  ModelOverlay o;
  o.origin = {Layer::kFile, where};
  o.key.model_id = std::get<std::string>(m.required("model_id", text_rule()));
  o.key.ns = m.text("namespace", text_rule()).value_or("default");
  o.priority = m.integer("priority", priority_rule());
  if (m.has("slo")) {
    const YamlEntries slo(where, m.node("slo"), prefix + "slo.", {"ttft_ms", "itl_ms"});
    o.slo = SloTargets{slo.number("ttft_ms", slo_target_rule()).value_or(0),
                       slo.number("itl_ms", slo_target_rule()).value_or(0)};
  }
  o.slo_attainment = m.number("slo_attainment", attainment_rule());
  o.slo_multiplier = m.number("slo_multiplier", slo_multiplier_rule());
  o.scale_to_zero_retention_s = m.number("scale_to_zero_retention_s", retention_rule());
  if (!m.has("variants")) return o;
  const YAML::Node list = m.node("variants");
  if (!list.IsSequence()) m.fail("variants", "must be a list");
  std::vector<VariantEntry> variants;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string vprefix = prefix + "variants[" + std::to_string(i) + "].";
    const YamlEntries v(where, list[i], vprefix, kVariantKeys);
    variants.push_back(read_variant(v));
    if (!names.insert(variants.back().name).second)
      v.fail("name", "must be unique in its model, got '" + variants.back().name + "' twice");
  }
  std::vector<Role> roles;
  for (const VariantEntry& v : variants) roles.push_back(v.spec.role);
  if (auto error = check_role_mix(roles)) fail(where + ": " + prefix + error->message);
  o.variants = std::move(variants);
  return o;
}

}  // namespace

LayerValues read_config_file(const std::string& path) {
  const std::string where = "file " + path;
  const YAML::Node root = load_yaml_file(path, where);
  if (!root.IsMap()) fail(where + ": the document must be a mapping of keys");
  LayerValues out;
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  read_settings(root, "", path, base_dir, out);
  if (const YAML::Node models = root["models"]) {
    if (!models.IsSequence()) fail(where + ": models must be a list");
    std::set<ModelKey> seen;
    for (std::size_t i = 0; i < models.size(); ++i) {
      const std::string prefix = "models[" + std::to_string(i) + "].";
      const YamlEntries m(where, models[i], prefix, kModelKeys);
      out.models.push_back(read_model(m, where, prefix));
      const ModelKey& key = out.models.back().key;
      if (!seen.insert(key).second)
        m.fail("model_id", "must be unique per namespace, got '" + key.model_id + "' twice in namespace '" + key.ns + "'");
    }
  }
  return out;
}

}  // namespace capstan::config
