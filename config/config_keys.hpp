// The daemon's scalar settings, one row each: its key path (the DaemonConfig field, as
// the file, the ConfigMap directory and `config print` spell it), its environment
// variable, its flag, the rule its value must meet and the field it sets. Every layer
// reads through this one table, so a key cannot be accepted by one layer and refused by
// another, and `config print` and the config_applied event list the same keys.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/daemon_config.hpp"
#include "config/value_text.hpp"

namespace capstan::config {

template <class T>
using FieldRef = T& (*)(DaemonConfig&);

struct ConfigKey {
  std::string key;   // "tick_s", "slo.ttft_ms"
  std::string env;   // "CAPSTAN_TICK"
  std::string flag;  // "--tick", or empty when no flag sets it
  ValueRule rule;
  std::variant<FieldRef<double>, FieldRef<int>, FieldRef<std::uint64_t>, FieldRef<bool>, FieldRef<std::string>> field;
};

// Every key, in the order `config print` lists them.
const std::vector<ConfigKey>& config_keys();
const ConfigKey* find_key(const std::string& key);
const ConfigKey* find_env(const std::string& env);

// The rules of the knobs a model entry may override too (the file's models, WVA's
// per-model entries): the same range at both levels.
ValueRule priority_rule();
ValueRule slo_target_rule();
ValueRule attainment_rule();
ValueRule slo_multiplier_rule();
ValueRule retention_rule();

// Sets the key's field from a parsed value of its rule's kind.
void assign(DaemonConfig& config, const ConfigKey& key, const Value& value);
// The key's current value as JSON (a number, a boolean or a string).
nlohmann::json value_json(const DaemonConfig& config, const ConfigKey& key);

}  // namespace capstan::config
