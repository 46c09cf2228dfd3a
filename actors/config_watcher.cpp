#include "actors/config_watcher.hpp"

namespace capstan::actors {

config_watcher_actor::behavior_type config_watcher_behavior(
    config_watcher_actor::stateful_pointer<ConfigWatcherState> self, ConfigLoader load, fleet_actor fleet,
    std::string source, nlohmann::json initial) {
  auto& s = self->state;
  s.load = std::move(load);
  s.fleet = std::move(fleet);
  s.source = std::move(source);
  s.last_good = std::move(initial);
  return {
      [self](check_atom) -> bool {
        auto& s = self->state;
        auto loaded = s.load();
        if (!loaded.ok()) {
          if (s.last_error != loaded.error().message) {
            s.last_error = loaded.error().message;
            self->send(s.fleet, config_atom::value, ConfigRejection{s.source, loaded.error().message});
          }
          return false;
        }
        s.last_error.reset();
        if (s.last_good == loaded.value().applied) return false;
        s.last_good = loaded.value().applied;
        self->send(s.fleet, config_atom::value, std::move(loaded).value());
        return true;
      },
  };
}

}  // namespace capstan::actors
