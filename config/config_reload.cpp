// Reloading a running daemon's configuration; see config_reload.hpp.
#include "config/config_reload.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace capstan::config {
namespace {

void flatten_into(const nlohmann::json& value, const std::string& path,
                  std::vector<std::pair<std::string, nlohmann::json>>& out) {
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, v] : value.items()) flatten_into(v, path.empty() ? key : path + "." + key, out);
  } else if (value.is_array() && !value.empty()) {
    for (std::size_t i = 0; i < value.size(); ++i) flatten_into(value[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(path, value);
  }
}

std::vector<ModelKey> declared(const DaemonConfig& c) {
  std::vector<ModelKey> keys;
  for (const ModelEntry& m : c.models)
    if (!m.variants.empty()) keys.push_back(m.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::json>> flatten(const nlohmann::json& value) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  flatten_into(value, "", out);
  return out;
}

ConfigChange compare(const DaemonConfig& before, const DaemonConfig& after) {
  ConfigChange change;
  const auto leaves = [](const DaemonConfig& c) { return flatten(to_json(EffectiveConfig{c, {}})["config"]); };
  std::map<std::string, nlohmann::json> old_values;
  for (auto& [key, value] : leaves(before)) old_values.emplace(key, std::move(value));
  for (const auto& [key, value] : leaves(after)) {
    const auto it = old_values.find(key);
    if (it == old_values.end() || it->second != value) change.changed_keys.push_back(key);
    if (it != old_values.end()) old_values.erase(it);
  }
  for (const auto& [key, value] : old_values) change.changed_keys.push_back(key);  // gone after
  const std::vector<ModelKey> was = declared(before), is = declared(after);
  std::set_difference(is.begin(), is.end(), was.begin(), was.end(), std::back_inserter(change.added_models));
  std::set_difference(was.begin(), was.end(), is.begin(), is.end(), std::back_inserter(change.removed_models));
  return change;
}

ReloadOutcome reload(const EffectiveConfig& last_good, const ConfigSources& sources) {
  auto loaded = load_config(sources);
  if (!loaded.ok()) return {last_good, loaded.error(), {}};
  ConfigChange change = compare(last_good.config, loaded->config);
  return {std::move(loaded).value(), std::nullopt, std::move(change)};
}

}  // namespace capstan::config
