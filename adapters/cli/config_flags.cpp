// The shared configuration flags; see config_flags.hpp.
#include "adapters/cli/config_flags.hpp"

#include <cstring>

#include "config/config_keys.hpp"

namespace capstan::cli {

std::shared_ptr<ConfigFlags> add_config_flags(CLI::App& cmd) {
  auto flags = std::make_shared<ConfigFlags>();
  flags->file_option = cmd.add_option("--config", flags->file, "configuration file, YAML or JSON (config/README.md)")
                           ->envname("CAPSTAN_CONFIG");
  flags->configmap_option =
      cmd.add_option("--configmap-dir", flags->configmap_dir,
                     "ConfigMap directory: one file per key, WVA's ConfigMaps in subdirectories")
          ->envname("CAPSTAN_CONFIGMAP_DIR");
  for (const config::ConfigKey& key : config::config_keys()) {
    if (key.flag.empty()) continue;
    CLI::Option* option = cmd.add_option(key.flag, flags->values[key.key],
                                         key.key + ": " + key.rule.describe() + " (env " + key.env + ")");
    flags->options.emplace_back(key.key, option);
  }
  return flags;
}

std::vector<std::pair<std::string, std::string>> capstan_environment(char** envp) {
  std::vector<std::pair<std::string, std::string>> out;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "CAPSTAN_", 8) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    out.emplace_back(std::string(*e, static_cast<std::size_t>(eq - *e)), std::string(eq + 1));
  }
  return out;
}

config::ConfigSources config_sources(const ConfigFlags& flags, char** envp) {
  config::ConfigSources sources;
  if (flags.file_option->count() > 0) sources.file = flags.file;
  if (flags.configmap_option->count() > 0) sources.configmap_dir = flags.configmap_dir;
  sources.env = capstan_environment(envp);
  for (const auto& [key, option] : flags.options)
    if (option->count() > 0) sources.flags.emplace_back(key, flags.values.at(key));
  return sources;
}

}  // namespace capstan::cli
