// The config watcher: re-reads the configuration when asked (before every tick) and
// tells the fleet what changed. An invalid change is refused: the last good
// configuration stays in force, the fleet records why (config_rejected), and the same
// broken input is reported once, not every tick.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "actors/messages.hpp"

namespace capstan::actors {

// Reads the configuration's layers again; an error names file, key and rule.
using ConfigLoader = std::function<Result<ConfigUpdate>()>;

struct ConfigWatcherState {
  ConfigLoader load;
  fleet_actor fleet;
  std::string source;
  std::optional<nlohmann::json> last_good;  // the `applied` form of the configuration in force
  std::optional<std::string> last_error;
  static inline const char* name = "capstan.config_watcher";
};

// `initial` is the configuration the daemon started with (already sent to the fleet).
config_watcher_actor::behavior_type config_watcher_behavior(
    config_watcher_actor::stateful_pointer<ConfigWatcherState> self, ConfigLoader load, fleet_actor fleet,
    std::string source, nlohmann::json initial);

}  // namespace capstan::actors
