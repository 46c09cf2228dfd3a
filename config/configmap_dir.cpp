// A ConfigMap directory; see configmap_dir.hpp.
#include "config/configmap_dir.hpp"

#include <algorithm>
#include <filesystem>

#include "config/config_error.hpp"
#include "config/config_keys.hpp"
#include "config/yaml_entries.hpp"
#include "domain/core/format.hpp"
#include "domain/model/saturation.hpp"
#include "domain/model/saturation_token.hpp"

namespace capstan::config {
namespace {

namespace fs = std::filesystem;

// A mounted ConfigMap's entries in name order, without Kubernetes' `..data` links.
std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().front() != '.') out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// One WVA entry: the mapping in a mounted key, and whether it is the `default` one.
struct WvaEntry {
  std::string where;
  YAML::Node node;
  bool is_default = false;
};

void for_each_entry(const fs::path& dir, const auto& read) {
  for (const fs::path& file : entries(dir)) {
    const std::string where = "configmap " + file.string();
    if (fs::is_directory(file)) fail(where + " must be a file (one per key), got a directory");
    read(WvaEntry{where, load_yaml_text(read_text_file(file.string(), where), where), file.filename() == "default"});
  }
}

Setting setting(const WvaEntry& e, const std::string& key, const std::string& source_key, std::string text) {
  return make_setting(key, std::move(text), Layer::kConfigMap, e.where, e.where + ": " + source_key);
}

ModelOverlay model_overlay(const WvaEntry& e, const YamlEntries& f, bool namespace_required) {
  ModelOverlay o;
  o.origin = {Layer::kConfigMap, e.where};
  const ValueRule text = kind_rule(ValueKind::kText);
  o.key.model_id = std::get<std::string>(f.required("model_id", text));
  if (namespace_required || f.has("namespace")) {
    o.key.ns = std::get<std::string>(f.required("namespace", text));
  } else {
    o.any_namespace = true;
  }
  return o;
}

std::vector<std::string> with_model_keys(std::vector<std::string> keys, bool is_default) {
  if (!is_default) keys.insert(keys.end(), {"model_id", "namespace"});
  return keys;
}

// seed 000: `default` {sloMultiplier, tuningEnabled}; per model targetTTFT/targetITL too.
void read_queueing(const WvaEntry& e, LayerValues& out) {
  std::vector<std::string> keys = {"sloMultiplier", "tuningEnabled"};
  if (!e.is_default) keys.insert(keys.end(), {"targetTTFT", "targetITL"});
  const YamlEntries f(e.where, e.node, "", with_model_keys(keys, e.is_default));
  if (auto tuning = f.boolean("tuningEnabled"); tuning && !*tuning)
    f.fail("tuningEnabled", "must be true: the queueing model sizes from learned parameters, got false");
  const auto k = f.number("sloMultiplier", slo_multiplier_rule());
  if (e.is_default) {
    if (k) out.settings.push_back(setting(e, "slo_multiplier", "sloMultiplier", scalar_text(f.node("sloMultiplier"), "")));
    return;
  }
  ModelOverlay o = model_overlay(e, f, true);
  o.slo_multiplier = k;
  const double ttft = f.number("targetTTFT", slo_target_rule()).value_or(0);
  const double itl = f.number("targetITL", slo_target_rule()).value_or(0);
  if ((ttft > 0) != (itl > 0))
    f.fail(ttft > 0 ? "targetITL" : "targetTTFT",
           "must be set with " + std::string(ttft > 0 ? "targetTTFT" : "targetITL") +
               " (both or neither; 0 = infer), got " + fmt_num(ttft > 0 ? itl : ttft));
  if (ttft > 0) o.slo = SloTargets{ttft, itl};
  out.models.push_back(std::move(o));
}

// A threshold capstan's saturation policies hold fixed: accepted at that value only.
void expect_fixed(const YamlEntries& f, const std::string& key, double fixed) {
  const auto v = f.number(key, number_rule(0, 1e9));
  if (v && *v != fixed)
    f.fail(key, "must be " + fmt_num(fixed) + ": capstan's saturation policies use " + fmt_num(fixed) +
                    " and take no configured threshold yet, got " + fmt_num(*v));
}

// seed 002 "Saturation Analyzer Configuration".
void read_saturation(const WvaEntry& e, LayerValues& out) {
  const std::vector<std::string> keys = {"analyzerName",     "kvCacheThreshold", "queueLengthThreshold",
                                         "kvSpareTrigger",   "queueSpareTrigger", "scaleUpThreshold",
                                         "scaleDownBoundary", "enableLimiter",   "priority"};
  const YamlEntries f(e.where, e.node, "", with_model_keys(keys, e.is_default));
  const SaturationConfig percent;
  const TokenSaturationConfig token;
  expect_fixed(f, "kvCacheThreshold", percent.thresholds.kv_cache_threshold);
  expect_fixed(f, "queueLengthThreshold", percent.thresholds.queue_length_threshold);
  expect_fixed(f, "kvSpareTrigger", percent.kv_spare_trigger);
  expect_fixed(f, "queueSpareTrigger", percent.queue_spare_trigger);
  expect_fixed(f, "scaleUpThreshold", token.scale_up_threshold);
  expect_fixed(f, "scaleDownBoundary", token.scale_down_boundary);
  if (auto limiter = f.boolean("enableLimiter"); limiter && *limiter)
    f.fail("enableLimiter", "must be false: capstan limits by gpu_budget (set it > 0 to share GPUs by priority), got true");
  const auto priority = f.integer("priority", priority_rule());
  if (f.has("analyzerName")) {
    if (!e.is_default) f.fail("analyzerName", "is fleet-wide in capstan: set it in the default entry");
    const std::string name = f.node("analyzerName").IsNull() ? "" : scalar_text(f.node("analyzerName"), "");
    if (name != "" && name != "saturation")
      f.fail("analyzerName", "must be \"\" (saturation percentage) or \"saturation\" (token based), got '" + name + "'");
    out.settings.push_back(setting(e, "policy", "analyzerName", name.empty() ? "saturation" : "saturation-token"));
  }
  if (e.is_default) {
    if (priority) out.default_priority = setting(e, "priority", "priority", std::to_string(*priority));
    return;
  }
  ModelOverlay o = model_overlay(e, f, true);
  o.priority = priority;
  out.models.push_back(std::move(o));
}

// seed 002 "Scale-to-Zero Configuration".
void read_scale_to_zero(const WvaEntry& e, LayerValues& out) {
  const YamlEntries f(e.where, e.node, "", with_model_keys({"enable_scale_to_zero", "retention_period"}, e.is_default));
  const auto enabled = f.boolean("enable_scale_to_zero");
  const auto retention = f.number("retention_period", retention_rule());
  if (!enabled && !retention) return;
  if (!enabled) f.fail("enable_scale_to_zero", "is required with retention_period");
  if (*enabled && !retention) f.fail("retention_period", "is required when enable_scale_to_zero is true");
  if (e.is_default) {
    out.settings.push_back(*enabled ? setting(e, "scale_to_zero_retention_s", "retention_period",
                                              scalar_text(f.node("retention_period"), ""))
                                    : setting(e, "scale_to_zero_retention_s", "enable_scale_to_zero", "0"));
    return;
  }
  ModelOverlay o = model_overlay(e, f, false);
  o.scale_to_zero_retention_s = *enabled ? *retention : 0;
  out.models.push_back(std::move(o));
}

}  // namespace

LayerValues read_configmap_dir(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) fail("configmap " + dir + ": not a directory");
  LayerValues out;
  for (const fs::path& entry : entries(root)) {
    const std::string name = entry.filename().string();
    const std::string where = "configmap " + entry.string();
    if (name == kWvaQueueingConfig) {
      for_each_entry(entry, [&](const WvaEntry& e) { read_queueing(e, out); });
    } else if (name == kWvaSaturationConfig) {
      for_each_entry(entry, [&](const WvaEntry& e) { read_saturation(e, out); });
    } else if (name == kWvaScaleToZeroConfig) {
      for_each_entry(entry, [&](const WvaEntry& e) { read_scale_to_zero(e, out); });
    } else if (find_key(name) != nullptr && !fs::is_directory(entry)) {
      out.settings.push_back(
          make_setting(name, read_text_file(entry.string(), where), Layer::kConfigMap, where, where, root.string()));
    } else {
      fail(where + " is not a known key (a key of config/README.md, or " + kWvaQueueingConfig + ", " +
           kWvaSaturationConfig + ", " + kWvaScaleToZeroConfig + ")");
    }
  }
  return out;
}

}  // namespace capstan::config
