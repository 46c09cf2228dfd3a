// `capstan config check` and `capstan config print`; see config_command.hpp.
#include "adapters/cli/config_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "adapters/cli/config_flags.hpp"
#include "config/config_reload.hpp"
#include "config/daemon_config.hpp"
#include "domain/core/format.hpp"

namespace capstan::cli {
namespace {

struct Row {
  std::string key, value, origin;
};

// The origin of a value: its own key's, else the closest enclosing one's
// ("models[0].variants[1].name" -> "models[0].variants").
std::string origin_of(const nlohmann::json& origins, std::string path) {
  while (!path.empty()) {
    if (origins.contains(path)) return origins[path].get<std::string>();
    const auto cut = path.find_last_of(".[");
    if (cut == std::string::npos) break;
    path.resize(cut);
  }
  return "";
}

// A leaf as the table shows it: strings bare, unset values as "-", numbers as fmt_num writes them.
std::string cell(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "-";
  if (value.is_number_float()) return fmt_num(value.get<double>());
  return value.dump();
}

void print_table(const nlohmann::json& effective) {
  std::vector<Row> rows;
  for (const auto& [key, value] : config::flatten(effective["config"]))
    rows.push_back({key, cell(value), value.is_null() ? "not set" : origin_of(effective["origins"], key)});
  std::size_t key_width = 3, value_width = 5;
  for (const Row& r : rows) {
    key_width = std::max(key_width, r.key.size());
    value_width = std::max(value_width, r.value.size());
  }
  const auto line = [&](const std::string& k, const std::string& v, const std::string& o) {
    std::cout << k << std::string(key_width - k.size() + 2, ' ') << v << std::string(value_width - v.size() + 2, ' ')
              << o << "\n";
  };
  line("key", "value", "set by");
  for (const Row& r : rows) line(r.key, r.value, r.origin);
}

std::string summary(const std::string& path, const config::DaemonConfig& c) {
  std::size_t variants = 0;
  for (const config::ModelEntry& m : c.models) variants += m.variants.size();
  return "ok: " + path + ": " + std::to_string(c.models.size()) + " models, " + std::to_string(variants) +
         " variants; policy " + c.policy + ", tick " + fmt_num(c.tick_s) + " s, metrics source " + c.metrics_source +
         ", connector " + c.connector;
}

}  // namespace

void add_config_command(CLI::App& app, int& status) {
  CLI::App* config = app.add_subcommand("config", "check or print the daemon's layered configuration");
  config->require_subcommand(1);

  CLI::App* check = config->add_subcommand("check", "validate a configuration file or ConfigMap directory");
  auto path = std::make_shared<std::string>();
  check->add_option("PATH", *path, "a YAML or JSON file, or a ConfigMap directory")->required();
  check->callback([path, &status] {
    config::ConfigSources sources;
    std::error_code ec;
    if (std::filesystem::is_directory(*path, ec)) {
      sources.configmap_dir = *path;
    } else {
      sources.file = *path;
    }
    auto loaded = config::load_config(sources);
    if (!loaded.ok()) {
      std::cerr << "capstan config check: " << loaded.error().message << "\n";
      status = 1;
      return;
    }
    std::cout << summary(*path, loaded->config) << "\n";
  });

  CLI::App* print = config->add_subcommand("print", "print the effective configuration and the layer of each value");
  auto flags = add_config_flags(*print);
  auto format = std::make_shared<std::string>("table");
  print->add_option("--format", *format, "table or json")->check(CLI::IsMember({"table", "json"}));
  print->callback([flags, format, &status] {
    auto loaded = config::load_config(config_sources(*flags, environ));
    if (!loaded.ok()) {
      std::cerr << "capstan config print: " << loaded.error().message << "\n";
      status = 1;
      return;
    }
    const nlohmann::json effective = config::to_json(loaded.value());
    if (*format == "json") {
      std::cout << effective.dump(2) << "\n";
    } else {
      print_table(effective);
    }
  });
}

}  // namespace capstan::cli
