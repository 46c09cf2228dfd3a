// Typed, validated reads of YAML mapping keys for the simulator's data files (fleet
// configs, hardware profiles). The first failure is kept, and its message names the
// file, the key and the rule: "fleet.yaml: variants[1].cold_start_s must be >= 0, got -5".
// Numbers must be finite (.nan and .inf are refused whatever the range), and
// reject_unknown_keys() refuses a misspelt key rather than ignoring it.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "domain/core/result.hpp"

namespace capstan::sim {

Result<YAML::Node> load_yaml_file(const std::string& path);

class YamlFields {
 public:
  YamlFields(std::string file, YAML::Node node, std::string key_prefix = "");

  void required_string(const std::string& key, std::string& out);
  void optional_string(const std::string& key, std::string& out);
  void required_double(const std::string& key, double& out, double min, double max);
  void optional_double(const std::string& key, double& out, double min, double max);
  void required_int(const std::string& key, int& out, int min, int max);
  void optional_int(const std::string& key, int& out, int min, int max);
  void fail(const std::string& key, const std::string& rule);

  bool ok() const { return error_.empty(); }
  Error error() const { return invalid_argument(error_); }

 private:
  bool present(const std::string& key, bool required);
  std::string file_;
  YAML::Node node_;
  std::string prefix_;
  std::string error_;
};

// Every key of `node` must be one of `known`; fails `f` naming the first that is not.
void reject_unknown_keys(YamlFields& f, const YAML::Node& node, const std::vector<std::string>& known);

}  // namespace capstan::sim
