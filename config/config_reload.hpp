// Re-reading the configuration in a running daemon (issue 21, item 5: "a running daemon
// that reads an invalid change keeps the last good configuration, logs why, records it
// as an event, and goes on ticking"). The config watcher calls reload() on a change or
// each tick; the outcome says whether to apply, what changed (for the config_applied
// event and the log line) and which declared models appeared or left (for the fleet
// actor to spawn or stop model actors). No clock and no actor here: a plain function.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/daemon_config.hpp"

namespace capstan::config {

// Every leaf of a JSON value with its key path ("slo.ttft_ms", "models[0].variants[1].name"),
// in document order; empty objects and arrays are leaves.
std::vector<std::pair<std::string, nlohmann::json>> flatten(const nlohmann::json& value);

struct ConfigChange {
  std::vector<std::string> changed_keys;  // key paths whose value differs, in to_json's order
  std::vector<ModelKey> added_models;     // declared (with variants) after, not before
  std::vector<ModelKey> removed_models;   // declared before, not after
  bool empty() const { return changed_keys.empty(); }
};

ConfigChange compare(const DaemonConfig& before, const DaemonConfig& after);

struct ReloadOutcome {
  EffectiveConfig config;       // the new configuration, or the last good one kept
  std::optional<Error> error;   // why the new one was refused (the last good one stays)
  ConfigChange change;          // empty when refused or when nothing changed
};

ReloadOutcome reload(const EffectiveConfig& last_good, const ConfigSources& sources);

}  // namespace capstan::config
