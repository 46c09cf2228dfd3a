// The layers merged: defaults < ConfigMap directory < file < environment < flags; see
// daemon_config.hpp. Each layer is read into LayerValues, then applied in order; a value
// is parsed by its key's rule (config_keys.hpp) when it is applied, so every layer is
// held to the same rules and its errors name that layer's source.
#include <filesystem>
#include <map>

#include "config/config_error.hpp"
#include "config/config_file.hpp"
#include "config/config_keys.hpp"
#include "config/configmap_dir.hpp"
#include "config/daemon_config.hpp"
#include "domain/codec/policy_config_codec.hpp"
#include "domain/stages/pd_ratio.hpp"

namespace capstan::config {
namespace {

namespace fs = std::filesystem;

// CAPSTAN_* variables that name a source rather than set a key (config_flags reads them).
bool names_a_source(const std::string& env) { return env == "CAPSTAN_CONFIG" || env == "CAPSTAN_CONFIGMAP_DIR"; }

LayerValues environment_layer(const std::vector<std::pair<std::string, std::string>>& env) {
  LayerValues out;
  for (const auto& [name, value] : env) {
    if (name.rfind("CAPSTAN_", 0) != 0 || names_a_source(name)) continue;
    const ConfigKey* key = find_env(name);
    if (key == nullptr) {
      std::string names = "CAPSTAN_CONFIG, CAPSTAN_CONFIGMAP_DIR";
      for (const ConfigKey& k : config_keys()) names += ", " + k.env;
      fail("env " + name + " is not a known variable (known: " + names + ")");
    }
    out.settings.push_back(make_setting(key->key, value, Layer::kEnv, "env " + name, "env " + name));
  }
  return out;
}

LayerValues flag_layer(const std::vector<std::pair<std::string, std::string>>& flags) {
  LayerValues out;
  for (const auto& [key_path, value] : flags) {
    const ConfigKey* key = find_key(key_path);
    if (key == nullptr) fail("flags: no configuration key is named '" + key_path + "'");
    const std::string flag = key->flag.empty() ? "--" + key->key : key->flag;
    out.settings.push_back(make_setting(key->key, value, Layer::kFlag, "flag " + flag, "flag " + flag));
  }
  return out;
}

class Merge {
 public:
  Merge() {
    for (const ConfigKey& key : config_keys()) effective_.origins[key.key] = Origin{};
  }

  void apply(const LayerValues& layer) {
    std::map<std::string, const Setting*> set_by;  // two values for one key in one layer is ambiguous
    for (const Setting& s : layer.settings) {
      if (auto [it, fresh] = set_by.emplace(s.key, &s); !fresh)
        fail(s.label + " sets " + s.key + ", which " + it->second->label + " sets too");
      apply(s);
    }
    for (const ModelOverlay& m : layer.models) apply(m);
    if (layer.default_priority) default_priority_ = layer.default_priority;
  }

  EffectiveConfig finish() {
    if (default_priority_) {
      const int priority = static_cast<int>(std::get<long long>(parse(*default_priority_, priority_rule())));
      for (std::size_t i = 0; i < priority_given_.size(); ++i) {
        if (priority_given_[i]) continue;
        effective_.config.models[i].priority = priority;
        effective_.origins[model_path(i) + ".priority"] = default_priority_->origin;
      }
    }
    check_effective();
    return std::move(effective_);
  }

 private:
  static Value parse(const Setting& s, const ValueRule& rule) {
    auto value = parse_value(s.text, rule);
    if (!value.ok()) fail(s.label + " " + value.error().message);
    return value.value();
  }

  static std::string model_path(std::size_t i) { return "models[" + std::to_string(i) + "]"; }

  void apply(const Setting& s) {
    const ConfigKey& key = *find_key(s.key);  // the readers make settings of known keys only
    Value value = parse(s, key.rule);
    if (key.rule.kind == ValueKind::kPath && !s.base_dir.empty()) {
      const fs::path path(std::get<std::string>(value));
      if (path.is_relative()) value = (fs::path(s.base_dir) / path).lexically_normal().string();
    }
    assign(effective_.config, key, value);
    effective_.origins[s.key] = s.origin;
  }

  void apply(const ModelOverlay& o) {
    auto& models = effective_.config.models;
    std::size_t i = 0;
    while (i < models.size() && !(models[i].key == o.key && models[i].any_namespace == o.any_namespace)) ++i;
    if (i == models.size()) {
      ModelEntry entry;
      entry.key = o.key;
      entry.any_namespace = o.any_namespace;
      models.push_back(std::move(entry));
      priority_given_.push_back(false);
      effective_.origins[model_path(i)] = o.origin;
    }
    ModelEntry& m = models[i];
    const auto set = [&](auto& field, const auto& value, const std::string& name) {
      if (!value) return;
      field = *value;
      effective_.origins[model_path(i) + "." + name] = o.origin;
    };
    set(m.slo, o.slo, "slo");
    set(m.slo_attainment, o.slo_attainment, "slo_attainment");
    set(m.slo_multiplier, o.slo_multiplier, "slo_multiplier");
    set(m.scale_to_zero_retention_s, o.scale_to_zero_retention_s, "scale_to_zero_retention_s");
    set(m.variants, o.variants, "variants");
    set(m.priority, o.priority, "priority");
    if (o.priority) priority_given_[i] = true;
  }

  // What only the merged values can show: the band's two bounds together, the sim
  // source's files, and every model's PolicyConfig as the policies will read it.
  void check_effective() const {
    const DaemonConfig& c = effective_.config;
    for (const auto& [key, path] : {std::pair{"sim_trace", c.sim_trace}, std::pair{"sim_fleet", c.sim_fleet}}) {
      std::error_code ec;
      if (!path.empty() && !fs::is_regular_file(path, ec))
        fail(effective_.origins.at(key).where + ": " + key + " must name a file, got '" + path + "' (no such file)");
    }
    if (auto e = validate(c.pd_band)) {
      // The bound set last (by the higher layer) is the one that broke the band.
      const Origin& lo = effective_.origins.at("pd_band.min_prefill_per_decode");
      const Origin& hi = effective_.origins.at("pd_band.max_prefill_per_decode");
      fail((hi.layer > lo.layer ? hi : lo).where + ": pd_band: " + e->message);
    }
    if (auto e = validate(policy_config(c))) fail("the effective configuration: " + e->message);
    for (const ModelEntry& m : c.models) {
      if (auto e = validate(policy_config_for(c, m.key)))
        fail("the effective configuration of model " + m.key.ns + "/" + m.key.model_id + ": " + e->message);
    }
  }

  EffectiveConfig effective_;
  std::vector<bool> priority_given_;
  std::optional<Setting> default_priority_;
};

}  // namespace

Result<EffectiveConfig> load_config(const ConfigSources& sources) {
  try {
    Merge merge;
    if (sources.configmap_dir) merge.apply(read_configmap_dir(*sources.configmap_dir));
    if (sources.file) merge.apply(read_config_file(*sources.file));
    merge.apply(environment_layer(sources.env));
    merge.apply(flag_layer(sources.flags));
    return merge.finish();
  } catch (const ConfigError& e) {
    return invalid_argument(e.what());
  }
}

}  // namespace capstan::config
