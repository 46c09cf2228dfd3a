// What one layer of the configuration says, before the layers are merged (load_config):
// scalar settings as text with the label errors name them by, and model entries with
// only the fields that layer sets. Each reader (config file, ConfigMap directory,
// environment, flags) produces one; load_config() applies them in order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config_keys.hpp"
#include "config/daemon_config.hpp"

namespace capstan::config {

struct Setting {
  std::string key;       // the key path in config_keys.hpp
  std::string text;      // the value as written
  Origin origin;
  std::string label;     // what errors name it by: "file x.yaml: tick_s", "env CAPSTAN_TICK"
  std::string base_dir;  // what a relative path is relative to ("" = the working directory)
};

// Out of line: GCC 12 reports a false -Wmaybe-uninitialized on the nested brace
// initialisation of a Setting's Origin at -O2.
Setting make_setting(std::string key, std::string text, Layer layer, std::string where, std::string label,
                     std::string base_dir = "");

// A model entry as one layer gives it: unset fields are left to lower layers.
struct ModelOverlay {
  ModelKey key;
  bool any_namespace = false;
  Origin origin;
  std::optional<int> priority;
  std::optional<SloTargets> slo;
  std::optional<double> slo_attainment;
  std::optional<double> slo_multiplier;
  std::optional<double> scale_to_zero_retention_s;
  std::optional<std::vector<VariantEntry>> variants;
};

struct LayerValues {
  std::vector<Setting> settings;
  std::vector<ModelOverlay> models;
  // The priority of every model that sets none (WVA's saturation ConfigMap `default`).
  std::optional<Setting> default_priority;
};

}  // namespace capstan::config
