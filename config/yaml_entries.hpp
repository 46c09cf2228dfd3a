// Reading configured values out of YAML (JSON being YAML too): a document from a file, a
// mapping's scalars by key through the rules of value_text.hpp, and unknown keys refused.
// Every error names where the value came from, the key path and the rule broken:
//   "file ops/capstan.yaml: models[0].variants[1].max_replicas must be an integer in [0, 100000], got 'x'"
// Failures throw ConfigError (config_error.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/value_text.hpp"

namespace capstan::config {

// A whole file's text; fails "<where>: cannot open file".
std::string read_text_file(const std::string& path, const std::string& where);

// The document of a file or of a ConfigMap value; `where` prefixes errors ("file PATH").
YAML::Node load_yaml_file(const std::string& path, const std::string& where);
YAML::Node load_yaml_text(const std::string& text, const std::string& where);

// A scalar's text; fails naming `label` when the node is a list, a mapping or empty.
std::string scalar_text(const YAML::Node& node, const std::string& label);

class YamlEntries {
 public:
  // Fails unless `node` is a mapping whose keys are all in `known`.
  YamlEntries(std::string where, YAML::Node node, std::string prefix, const std::vector<std::string>& known);

  bool has(const std::string& key) const;
  YAML::Node node(const std::string& key) const { return node_[key]; }
  std::string label(const std::string& key) const { return where_ + ": " + prefix_ + key; }

  Value required(const std::string& key, const ValueRule& rule) const;
  std::optional<Value> optional(const std::string& key, const ValueRule& rule) const;
  // Typed shorthands of optional().
  std::optional<double> number(const std::string& key, const ValueRule& rule) const;
  std::optional<int> integer(const std::string& key, const ValueRule& rule) const;
  std::optional<bool> boolean(const std::string& key) const;
  std::optional<std::string> text(const std::string& key, const ValueRule& rule) const;

  [[noreturn]] void fail(const std::string& key, const std::string& rule) const;

 private:
  std::string where_;
  YAML::Node node_;
  std::string prefix_;
};

}  // namespace capstan::config
