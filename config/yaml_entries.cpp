// Configured values out of YAML; see yaml_entries.hpp.
#include "config/yaml_entries.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "config/config_error.hpp"

namespace capstan::config {
namespace {

YAML::Node parse(const std::string& text, const std::string& where) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(where + ": line " + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& where) {
  std::ifstream in(path);
  if (!in) fail(where + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node load_yaml_file(const std::string& path, const std::string& where) {
  return parse(read_text_file(path, where), where);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& where) { return parse(text, where); }

std::string scalar_text(const YAML::Node& node, const std::string& label) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsNull()) fail(label + " must have a value, got nothing");
  fail(label + " must be a single value, got a " + (node.IsSequence() ? "list" : "mapping"));
}

YamlEntries::YamlEntries(std::string where, YAML::Node node, std::string prefix, const std::vector<std::string>& known)
    : where_(std::move(where)), node_(std::move(node)), prefix_(std::move(prefix)) {
  if (!node_.IsMap()) {
    const std::string what = prefix_.empty() ? "the document" : prefix_.substr(0, prefix_.size() - 1);
    config::fail(where_ + ": " + what + " must be a mapping");
  }
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
    config::fail(label(key) + " is not a known key (known: " + names + ")");
  }
}

bool YamlEntries::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

void YamlEntries::fail(const std::string& key, const std::string& rule) const { config::fail(label(key) + " " + rule); }

Value YamlEntries::required(const std::string& key, const ValueRule& rule) const {
  if (!has(key)) fail(key, "is required");
  auto value = parse_value(scalar_text(node_[key], label(key)), rule);
  if (!value.ok()) fail(key, value.error().message);
  return value.value();
}

std::optional<Value> YamlEntries::optional(const std::string& key, const ValueRule& rule) const {
  if (!has(key)) return std::nullopt;
  return required(key, rule);
}

std::optional<double> YamlEntries::number(const std::string& key, const ValueRule& rule) const {
  auto v = optional(key, rule);
  if (!v) return std::nullopt;
  return std::get<double>(*v);
}

std::optional<int> YamlEntries::integer(const std::string& key, const ValueRule& rule) const {
  auto v = optional(key, rule);
  if (!v) return std::nullopt;
  return static_cast<int>(std::get<long long>(*v));
}

std::optional<bool> YamlEntries::boolean(const std::string& key) const {
  auto v = optional(key, kind_rule(ValueKind::kBoolean));
  if (!v) return std::nullopt;
  return std::get<bool>(*v);
}

std::optional<std::string> YamlEntries::text(const std::string& key, const ValueRule& rule) const {
  auto v = optional(key, rule);
  if (!v) return std::nullopt;
  return std::get<std::string>(*v);
}

}  // namespace capstan::config
