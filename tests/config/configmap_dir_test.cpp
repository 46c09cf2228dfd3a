#include "config/configmap_dir.hpp"

#include <catch2/catch.hpp>

#include "config/daemon_config.hpp"
#include "temp_config.hpp"
#include "test_data.hpp"

using namespace capstan;
using namespace capstan::config;
using capstan::testing::TempConfigDir;
using Catch::Matchers::StartsWith;

namespace {

Result<EffectiveConfig> load_dir(const std::string& dir) {
  return load_config({.configmap_dir = dir, .file = std::nullopt, .env = {}, .flags = {}});
}

// The error of a ConfigMap directory made of `files` (name -> content), the directory's
// path replaced by D.
std::string dir_error(const std::vector<std::pair<std::string, std::string>>& files) {
  TempConfigDir dir;
  for (const auto& [name, text] : files) dir.write(name, text);
  auto loaded = load_dir(dir.path());
  if (loaded.ok()) return "(loaded)";
  std::string message = loaded.error().message;
  for (auto at = message.find(dir.path()); at != std::string::npos; at = message.find(dir.path()))
    message.replace(at, dir.path().size(), "D");
  return message;
}

const ModelEntry& model(const DaemonConfig& c, const std::string& ns, const std::string& id, bool any_namespace = false) {
  for (const ModelEntry& m : c.models)
    if (m.key.model_id == id && m.any_namespace == any_namespace && (any_namespace || m.key.ns == ns)) return m;
  FAIL("no model entry " << ns << "/" << id);
  throw;
}

}  // namespace

TEST_CASE("WVA's three ConfigMaps as the seeds write them: default plus per-model entries by model_id + namespace") {
  const std::string dir = capstan::testing::data_path("config/wva-seed");
  auto loaded = load_dir(dir);
  INFO((loaded.ok() ? "" : loaded.error().message));
  REQUIRE(loaded.ok());
  const DaemonConfig& c = loaded->config;
  // queueing: default sloMultiplier, explicit SLO for one model, a k of its own for another
  CHECK(c.slo_multiplier == 3);
  CHECK(loaded->origins.at("slo_multiplier").where == "configmap " + dir + "/wva-queueing-model-config/default");
  const ModelEntry& llama = model(c, "llm-d-prod", "meta-llama/Meta-Llama-3.1-8B-Instruct");
  CHECK(llama.slo == SloTargets{500, 50});
  CHECK(llama.slo_multiplier == 3);
  const ModelEntry& mistral = model(c, "llm-d-staging", "mistralai/Mistral-7B-Instruct-v0.2");
  CHECK_FALSE(mistral.slo.has_value());  // inferred from k and the learned parameters
  CHECK(mistral.slo_multiplier == 4);
  CHECK(policy_config_for(c, mistral.key).slo_multiplier == 4);
  // saturation: analyzerName "saturation" is the token-based analyzer; priority 1.0 is every model's
  CHECK(c.policy == "saturation-token");
  CHECK(model(c, "llm-inference", "meta/llama-3.1-8b").priority == 3);
  CHECK(llama.priority == 1);
  CHECK(loaded->origins.at("models[0].priority").where ==
        "configmap " + dir + "/wva-saturation-scaling-config/default");
  // scale to zero: on after 10 minutes, off for one model id in every namespace
  CHECK(c.scale_to_zero_retention_s == 600);
  CHECK(model(c, "", "meta/llama-3.1-8b", true).scale_to_zero_retention_s == 0);
  CHECK(policy_config_for(c, {"llm-inference", "meta/llama-3.1-8b"}).scale_to_zero_retention_s == 0);
  CHECK(policy_config_for(c, {"any", "meta/llama-3.1-8b"}).scale_to_zero_retention_s == 0);
  CHECK(policy_config_for(c, llama.key).scale_to_zero_retention_s == 600);
}

TEST_CASE("A ConfigMap directory holds one file per plain key, and the mount's hidden links are skipped") {
  TempConfigDir dir;
  dir.write("cm/tick_s", "15s\n");
  dir.write("cm/slo.itl_ms", "80");
  dir.write("cm/sim_fleet", "../fleets/a.yaml");
  dir.write("fleets/a.yaml", "model: m\n");
  dir.write("cm/..data/tick_s", "999s");  // the mount's own bookkeeping
  auto loaded = load_dir(dir.path() + "/cm");
  INFO((loaded.ok() ? "" : loaded.error().message));
  REQUIRE(loaded.ok());
  CHECK(loaded->config.tick_s == 15);
  CHECK(loaded->config.slo.itl_ms == 80);
  CHECK(loaded->config.sim_fleet == dir.path() + "/fleets/a.yaml");
  CHECK(loaded->origins.at("tick_s").layer == Layer::kConfigMap);
  CHECK(loaded->origins.at("tick_s").where == "configmap " + dir.path() + "/cm/tick_s");
}

TEST_CASE("Scale to zero: disabled by default is a 0 retention, and a model may turn it on with its own period") {
  TempConfigDir dir;
  dir.write("wva-model-scale-to-zero-config/default", "enable_scale_to_zero: false\nretention_period: 10m\n");
  dir.write("wva-model-scale-to-zero-config/m", "model_id: m\nnamespace: ns\nenable_scale_to_zero: true\nretention_period: 90s\n");
  auto loaded = load_dir(dir.path());
  REQUIRE(loaded.ok());
  CHECK(loaded->config.scale_to_zero_retention_s == 0);
  CHECK(loaded->origins.at("scale_to_zero_retention_s").where ==
        "configmap " + dir.path() + "/wva-model-scale-to-zero-config/default");
  CHECK(policy_config_for(loaded->config, {"ns", "m"}).scale_to_zero_retention_s == 90);
  CHECK(policy_config_for(loaded->config, {"other", "m"}).scale_to_zero_retention_s == 0);
}

TEST_CASE("A per-model ConfigMap entry overrides what the ConfigMap says, and the file overrides both") {
  TempConfigDir dir;
  dir.write("cm/wva-queueing-model-config/default", "sloMultiplier: 2.5\n");
  dir.write("cm/wva-queueing-model-config/m", "model_id: m\nnamespace: prod\ntargetTTFT: 400\ntargetITL: 40\n");
  const std::string file = dir.write("c.yaml",
                                     "slo_multiplier: 5\nmodels:\n  - {model_id: m, namespace: prod, slo: {ttft_ms: 900, itl_ms: 0},"
                                     " variants: [{name: v}]}\n");
  auto loaded = load_config({.configmap_dir = dir.path() + "/cm", .file = file, .env = {}, .flags = {}});
  REQUIRE(loaded.ok());
  CHECK(loaded->config.slo_multiplier == 5);
  REQUIRE(loaded->config.models.size() == 1);
  CHECK(loaded->config.models[0].slo == SloTargets{900, 0});
  CHECK(loaded->origins.at("models[0].slo").layer == Layer::kFile);
  CHECK(loaded->config.models[0].variants.size() == 1);
}

TEST_CASE("Each invalid ConfigMap entry is refused naming the mounted key, the field and the rule") {
  const std::string q = "wva-queueing-model-config/";
  const std::string s = "wva-saturation-scaling-config/";
  const std::string z = "wva-model-scale-to-zero-config/";
  CHECK(dir_error({{q + "m", "model_id: m\nnamespace: ns\ntargetTTFT: 500\n"}}) ==
        "configmap D/" + q + "m: targetITL must be set with targetTTFT (both or neither; 0 = infer), got 0");
  CHECK(dir_error({{q + "default", "sloMultiplier: 0.8\n"}}) ==
        "configmap D/" + q + "default: sloMultiplier must be a finite number in (1, 1000000], got '0.8'");
  CHECK(dir_error({{q + "default", "tuningEnabled: false\n"}}) ==
        "configmap D/" + q + "default: tuningEnabled must be true: the queueing model sizes from learned parameters, got false");
  CHECK(dir_error({{q + "m", "model_id: m\ntargetTTFT: 500\ntargetITL: 50\n"}}) ==
        "configmap D/" + q + "m: namespace is required");
  CHECK_THAT(dir_error({{q + "default", "sloMultiplier: 3\nmodel_id: m\n"}}),
             StartsWith("configmap D/" + q + "default: model_id is not a known key (known: sloMultiplier, tuningEnabled)"));
  CHECK(dir_error({{s + "default", "kvCacheThreshold: 0.9\n"}}) ==
        "configmap D/" + s +
            "default: kvCacheThreshold must be 0.8: capstan's saturation policies use 0.8 and take no configured "
            "threshold yet, got 0.9");
  CHECK(dir_error({{s + "default", "analyzerName: fancy\n"}}) ==
        "configmap D/" + s + "default: analyzerName must be \"\" (saturation percentage) or \"saturation\" (token based), got 'fancy'");
  CHECK(dir_error({{s + "m", "model_id: m\nnamespace: ns\nanalyzerName: saturation\n"}}) ==
        "configmap D/" + s + "m: analyzerName is fleet-wide in capstan: set it in the default entry");
  CHECK(dir_error({{s + "default", "enableLimiter: true\n"}}) ==
        "configmap D/" + s +
            "default: enableLimiter must be false: capstan limits by gpu_budget (set it > 0 to share GPUs by priority), got true");
  CHECK(dir_error({{z + "default", "enable_scale_to_zero: true\n"}}) ==
        "configmap D/" + z + "default: retention_period is required when enable_scale_to_zero is true");
  CHECK(dir_error({{z + "default", "enable_scale_to_zero: true\nretention_period: 10 minutes\n"}}) ==
        "configmap D/" + z + "default: retention_period must be a duration in [0, 31536000] (30s, 5m, 500ms, 1h or seconds), got '10 minutes'");
  CHECK(dir_error({{"tick", "30s"}}) ==
        "configmap D/tick is not a known key (a key of config/README.md, or wva-queueing-model-config, "
        "wva-saturation-scaling-config, wva-model-scale-to-zero-config)");
  CHECK(dir_error({{"policy", "hybrid"}, {s + "default", "analyzerName: \"\"\n"}}) ==
        "configmap D/" + s + "default: analyzerName sets policy, which configmap D/policy sets too");
  CHECK(dir_error({{"tick_s", "-1s"}}) ==
        "configmap D/tick_s must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got '-1s'");
  CHECK_THAT(dir_error({{q + "default", "sloMultiplier: [3\n"}}), StartsWith("configmap D/" + q + "default: line "));
  CHECK(dir_error({}) == "(loaded)");
  auto missing = load_dir("/nonexistent/configmap");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "configmap /nonexistent/configmap: not a directory");
}
