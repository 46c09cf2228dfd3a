// `capstan config`: the daemon's configuration without running it.
//   capstan config check PATH        validates a configuration file (YAML or JSON) or a
//                                    ConfigMap directory alone: exit 0 and a one-line
//                                    summary, or the error (file, key, rule) and exit 1.
//   capstan config print [flags]     the effective configuration from every layer
//                                    (config_flags.hpp, the CAPSTAN_* environment), one
//                                    row per value with the layer that set it; `--format
//                                    json` prints config::to_json (what config_applied
//                                    records). An invalid configuration: the error, exit 1.
#pragma once

#include <CLI/CLI.hpp>

namespace capstan::cli {

// `status` receives the exit status (1 when the configuration is invalid).
void add_config_command(CLI::App& app, int& status);

}  // namespace capstan::cli
