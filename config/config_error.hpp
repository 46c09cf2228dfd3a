// The one exception the configuration readers throw inside config/: its message is the
// whole error ("file capstan.yaml: models[0].variants[1].max_replicas must be ...").
// load_config() catches it and returns an Error, so nothing throws across the API.
#pragma once

#include <stdexcept>
#include <string>

namespace capstan::config {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& message) { throw ConfigError(message); }

}  // namespace capstan::config
