// The configuration flags `capstan run` and `capstan config print` share: `--config FILE`
// (or CAPSTAN_CONFIG), `--configmap-dir DIR` (or CAPSTAN_CONFIGMAP_DIR), and one flag per
// key that has one in config/config_keys.hpp (--data-dir, --tick, --policy,
// --metrics-source, --connector, --log-format, --clock, --speedup, --trace, --fleet,
// --seed, --slo-ttft-ms, --slo-itl-ms). Flags are taken as text and checked by the key's
// rule when the layers are merged (config::load_config), so a bad flag fails like a bad
// file value: "flag --tick must be a duration > 0 ..., got '0'". A flag not given is
// not a layer.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/daemon_config.hpp"

namespace capstan::cli {

struct ConfigFlags {
  std::string file;
  std::string configmap_dir;
  std::map<std::string, std::string> values;  // key path -> the flag's text, as CLI11 stores it
  CLI::Option* file_option = nullptr;
  CLI::Option* configmap_option = nullptr;
  std::vector<std::pair<std::string, CLI::Option*>> options;  // key path -> its flag
};

// Registers the flags on `cmd`; the returned value receives them and must outlive parsing.
std::shared_ptr<ConfigFlags> add_config_flags(CLI::App& cmd);

// The CAPSTAN_* variables of an environment block (environ).
std::vector<std::pair<std::string, std::string>> capstan_environment(char** envp);

// The sources the flags name, the environment's CAPSTAN_* variables, and the flags given.
config::ConfigSources config_sources(const ConfigFlags& flags, char** envp);

}  // namespace capstan::cli
