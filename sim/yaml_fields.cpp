// Validated YAML key reads; see yaml_fields.hpp.
#include "sim/yaml_fields.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace capstan::sim {

Result<YAML::Node> load_yaml_file(const std::string& path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return invalid_argument(path + ": cannot open file");
  } catch (const YAML::Exception& e) {
    return invalid_argument(path + ": line " + std::to_string(e.mark.line + 1) +
                            ": invalid YAML: " + e.msg);
  }
}

YamlFields::YamlFields(std::string file, YAML::Node node, std::string key_prefix)
    : file_(std::move(file)), node_(std::move(node)), prefix_(std::move(key_prefix)) {
  if (!node_.IsMap()) error_ = file_ + ": " + (prefix_.empty() ? "document" : prefix_) +
                               " must be a mapping";
}

void YamlFields::fail(const std::string& key, const std::string& rule) {
  if (error_.empty()) error_ = file_ + ": " + prefix_ + key + " " + rule;
}

bool YamlFields::present(const std::string& key, bool required) {
  if (!error_.empty()) return false;
  if (node_[key]) return true;
  if (required) fail(key, "is required");
  return false;
}

void YamlFields::required_string(const std::string& key, std::string& out) {
  if (present(key, true)) optional_string(key, out);
}

void YamlFields::optional_string(const std::string& key, std::string& out) {
  if (!present(key, false)) return;
  if (!node_[key].IsScalar()) return fail(key, "must be a string");
  out = node_[key].as<std::string>();
}

void YamlFields::required_double(const std::string& key, double& out, double min, double max) {
  if (present(key, true)) optional_double(key, out, min, max);
}

void YamlFields::optional_double(const std::string& key, double& out, double min, double max) {
  if (!present(key, false)) return;
  double v = 0;
  try {
    v = node_[key].as<double>();
  } catch (const YAML::Exception&) {
    return fail(key, "must be a number, got '" + YAML::Dump(node_[key]) + "'");
  }
  std::ostringstream rule;
  if (!std::isfinite(v)) return fail(key, "must be a finite number, got " + YAML::Dump(node_[key]));
  if (v < min) {
    rule << "must be >= " << min << ", got " << v;
    return fail(key, rule.str());
  }
  if (v > max) {
    rule << "must be <= " << max << ", got " << v;
    return fail(key, rule.str());
  }
  out = v;
}

void YamlFields::required_int(const std::string& key, int& out, int min, int max) {
  if (present(key, true)) optional_int(key, out, min, max);
}

void YamlFields::optional_int(const std::string& key, int& out, int min, int max) {
  if (!present(key, false)) return;
  int v = 0;
  try {
    v = node_[key].as<int>();
  } catch (const YAML::Exception&) {
    return fail(key, "must be an integer, got '" + YAML::Dump(node_[key]) + "'");
  }
  if (v < min) return fail(key, "must be >= " + std::to_string(min) + ", got " + std::to_string(v));
  if (v > max) return fail(key, "must be <= " + std::to_string(max) + ", got " + std::to_string(v));
  out = v;
}

void reject_unknown_keys(YamlFields& f, const YAML::Node& node, const std::vector<std::string>& known) {
  if (!f.ok() || !node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
    return f.fail(key, "is not a known key (known: " + names + ")");
  }
}

}  // namespace capstan::sim
