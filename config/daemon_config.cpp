// The daemon's configuration as values: per-model policy knobs and the recorded form;
// see daemon_config.hpp. Loading is load_config.cpp.
#include "config/daemon_config.hpp"

#include "config/config_keys.hpp"

namespace capstan::config {

const char* to_string(Layer layer) {
  switch (layer) {
    case Layer::kDefault: return "default";
    case Layer::kConfigMap: return "configmap";
    case Layer::kFile: return "file";
    case Layer::kEnv: return "env";
    case Layer::kFlag: return "flag";
  }
  return "?";
}

namespace {

const ModelEntry* find_entry(const DaemonConfig& config, const ModelKey& model, bool any_namespace) {
  for (const ModelEntry& m : config.models) {
    if (m.any_namespace != any_namespace || m.key.model_id != model.model_id) continue;
    if (any_namespace || m.key.ns == model.ns) return &m;
  }
  return nullptr;
}

void apply_overrides(const ModelEntry& m, PolicySettings& s) {
  if (m.slo) s.slo = *m.slo;
  if (m.slo_attainment) s.slo_attainment = *m.slo_attainment;
  if (m.slo_multiplier) s.slo_multiplier = *m.slo_multiplier;
  if (m.scale_to_zero_retention_s) s.scale_to_zero_retention_s = *m.scale_to_zero_retention_s;
}

// "slo.ttft_ms" -> /slo/ttft_ms: a key path's dots nest it in the recorded form.
nlohmann::json::json_pointer json_pointer(std::string key) {
  for (char& c : key)
    if (c == '.') c = '/';
  return nlohmann::json::json_pointer("/" + key);
}

nlohmann::json optional_json(const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(); }

nlohmann::json model_json(const ModelEntry& m) {
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantEntry& v : m.variants) {
    variants.push_back({{"name", v.name},
                        {"scale_target", v.scale_target},
                        {"accelerator", v.accelerator},
                        {"min_replicas", v.spec.min_replicas},
                        {"max_replicas", v.spec.max_replicas},
                        {"cost_per_replica", v.spec.cost_per_replica},
                        {"gpus_per_replica", v.spec.gpus_per_replica},
                        {"max_batch_size", v.spec.max_batch_size},
                        {"max_queue_size", v.spec.max_queue_size},
                        {"kv_capacity_tokens", v.spec.kv_capacity_tokens},
                        {"max_num_batched_tokens", v.spec.max_num_batched_tokens},
                        {"cold_start_s", v.cold_start_s},
                        {"role", capstan::to_string(v.spec.role)}});
  }
  nlohmann::json slo;
  if (m.slo) slo = {{"ttft_ms", m.slo->ttft_ms}, {"itl_ms", m.slo->itl_ms}};
  return {{"model_id", m.key.model_id},
          {"namespace", m.any_namespace ? nlohmann::json() : nlohmann::json(m.key.ns)},
          {"priority", m.priority},
          {"slo", slo},
          {"slo_attainment", optional_json(m.slo_attainment)},
          {"slo_multiplier", optional_json(m.slo_multiplier)},
          {"scale_to_zero_retention_s", optional_json(m.scale_to_zero_retention_s)},
          {"variants", variants}};
}

}  // namespace

const ModelEntry* find_model(const DaemonConfig& config, const ModelKey& model) {
  if (const ModelEntry* exact = find_entry(config, model, false)) return exact;
  return find_entry(config, model, true);
}

PolicyConfig policy_config_for(const DaemonConfig& config, const ModelKey& model) {
  PolicySettings settings = config;
  if (const ModelEntry* any = find_entry(config, model, true)) apply_overrides(*any, settings);
  if (const ModelEntry* exact = find_entry(config, model, false)) apply_overrides(*exact, settings);
  return policy_config(settings);
}

nlohmann::json to_json(const EffectiveConfig& effective) {
  nlohmann::json config = nlohmann::json::object();
  for (const ConfigKey& key : config_keys()) config[json_pointer(key.key)] = value_json(effective.config, key);
  nlohmann::json models = nlohmann::json::array();
  for (const ModelEntry& m : effective.config.models) models.push_back(model_json(m));
  config["models"] = models;
  nlohmann::json origins = nlohmann::json::object();
  for (const auto& [key, origin] : effective.origins) origins[key] = origin.where;
  return {{"config", config}, {"origins", origins}};
}

}  // namespace capstan::config
