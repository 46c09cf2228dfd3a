#include <filesystem>

#include <catch2/catch.hpp>

#include "config/daemon_config.hpp"
#include "temp_config.hpp"

using namespace capstan;
using namespace capstan::config;
using capstan::testing::TempConfigDir;
using Catch::Matchers::StartsWith;

namespace {

EffectiveConfig load_ok(const ConfigSources& sources) {
  auto loaded = load_config(sources);
  INFO((loaded.ok() ? "" : loaded.error().message));
  REQUIRE(loaded.ok());
  return loaded.value();
}

// The error of a configuration file holding `text` (written as capstan.yaml), with the
// file's path replaced by P so that the expected messages read whole.
std::string file_error(const std::string& text) {
  TempConfigDir dir;
  const std::string path = dir.write("capstan.yaml", text);
  auto loaded = load_config({.configmap_dir = std::nullopt, .file = path, .env = {}, .flags = {}});
  if (loaded.ok()) return "(loaded)";
  std::string message = loaded.error().message;
  for (auto at = message.find(path); at != std::string::npos; at = message.find(path))
    message.replace(at, path.size(), "P");
  return message;
}

std::string sources_error(const ConfigSources& sources) {
  auto loaded = load_config(sources);
  return loaded.ok() ? "(loaded)" : loaded.error().message;
}

const char* kModelsFile = R"(
models:
  - model_id: meta-llama/Llama-2-70b-hf
    namespace: llm
    priority: 2
    slo: {ttft_ms: 1500, itl_ms: 80}
    slo_attainment: 0.99
    scale_to_zero_retention_s: 10m
    variants:
      - name: llama70b-h100
        scale_target: deployment/llama70b-h100
        accelerator: H100
        min_replicas: 1
        max_replicas: 8
        cost_per_replica: 12
        gpus_per_replica: 4
        max_batch_size: 256
        max_queue_size: 50
        kv_capacity_tokens: 416000
        max_num_batched_tokens: 8192
        cold_start_s: 4m
        role: both
      - name: llama70b-a100
        cost_per_replica: 8
  - model_id: mistralai/Mistral-7B-Instruct-v0.2
)";

}  // namespace

TEST_CASE("With no source every value is the built-in default and says so") {
  const EffectiveConfig e = load_ok({});
  CHECK(e.config.policy == "hybrid");
  CHECK(e.config.tick_s == 30);
  CHECK(e.config.data_dir == "./capstan-data");
  CHECK(e.config.slo == PolicyConfig{}.slo);
  CHECK(e.config.slo_attainment == 0.95);
  CHECK(e.config.models.empty());
  REQUIRE(e.origins.count("tick_s") == 1);
  for (const auto& [key, origin] : e.origins) {
    INFO(key);
    CHECK(origin.layer == Layer::kDefault);
    CHECK(origin.where == "default");
  }
}

TEST_CASE("Precedence: defaults < configmap < file < env < flags, and each value's origin names its layer") {
  TempConfigDir dir;
  dir.write("cm/tick_s", "10s\n");
  dir.write("cm/policy", "queueing\n");
  dir.write("cm/slo.ttft_ms", "1000");
  dir.write("cm/gpu_budget", "4");
  dir.write("cm/seed", "2");
  const std::string file = dir.write("capstan.yaml", "tick_s: 20s\npolicy: erlang\nslo:\n  ttft_ms: 1500\nseed: 3\n");
  const ConfigSources sources{.configmap_dir = dir.path() + "/cm",
                              .file = file,
                              .env = {{"CAPSTAN_TICK", "40s"}, {"CAPSTAN_POLICY", "throughput"}, {"HOME", "/root"}},
                              .flags = {{"tick_s", "50s"}}};
  const EffectiveConfig e = load_ok(sources);
  const nlohmann::json config = to_json(e)["config"];

  struct Row {
    const char* key;
    const char* pointer;
    nlohmann::json value;
    Layer layer;
    std::string where;
  };
  const Row table[] = {
      {"tick_s", "/tick_s", 50.0, Layer::kFlag, "flag --tick"},
      {"policy", "/policy", "throughput", Layer::kEnv, "env CAPSTAN_POLICY"},
      {"slo.ttft_ms", "/slo/ttft_ms", 1500.0, Layer::kFile, "file " + file},
      {"seed", "/seed", 3, Layer::kFile, "file " + file},
      {"gpu_budget", "/gpu_budget", 4, Layer::kConfigMap, "configmap " + dir.path() + "/cm/gpu_budget"},
      {"speedup", "/speedup", 1.0, Layer::kDefault, "default"},
  };
  for (const Row& row : table) {
    INFO(row.key);
    CHECK(config[nlohmann::json::json_pointer(row.pointer)] == row.value);
    CHECK(e.origins.at(row.key).layer == row.layer);
    CHECK(e.origins.at(row.key).where == row.where);
    CHECK(to_json(e)["origins"][row.key] == row.where);
  }
}

TEST_CASE("A file declares models and variants with every field, and JSON reads like YAML") {
  TempConfigDir dir;
  const EffectiveConfig e = load_ok({.configmap_dir = std::nullopt, .file = dir.write("c.yaml", kModelsFile), .env = {}, .flags = {}});
  REQUIRE(e.config.models.size() == 2);
  const ModelEntry& llama = e.config.models[0];
  CHECK(llama.key == ModelKey{"llm", "meta-llama/Llama-2-70b-hf"});
  CHECK(llama.priority == 2);
  CHECK(llama.slo == SloTargets{1500, 80});
  CHECK(llama.slo_attainment == 0.99);
  CHECK(llama.scale_to_zero_retention_s == 600);
  REQUIRE(llama.variants.size() == 2);
  const VariantEntry& h100 = llama.variants[0];
  CHECK(h100.name == "llama70b-h100");
  CHECK(h100.scale_target == "deployment/llama70b-h100");
  CHECK(h100.accelerator == "H100");
  CHECK(h100.spec.name == "llama70b-h100");
  CHECK(h100.spec.min_replicas == 1);
  CHECK(h100.spec.max_replicas == 8);
  CHECK(h100.spec.cost_per_replica == 12);
  CHECK(h100.spec.gpus_per_replica == 4);
  CHECK(h100.spec.max_batch_size == 256);
  CHECK(h100.spec.max_queue_size == 50);
  CHECK(h100.spec.kv_capacity_tokens == 416000);
  CHECK(h100.spec.max_num_batched_tokens == 8192);
  CHECK(h100.spec.role == Role::kBoth);
  CHECK(h100.cold_start_s == 240);
  CHECK(llama.variants[1].scale_target == "llama70b-a100");  // the name when not set
  CHECK(e.config.models[1].key.ns == "default");
  CHECK(e.config.models[1].priority == 1);
  CHECK(e.origins.at("models[0].variants").layer == Layer::kFile);

  const std::string json = dir.write("c.json", R"({"tick_s": "15s", "slo": {"itl_ms": 60},
      "models": [{"model_id": "m", "namespace": "ns", "variants": [{"name": "v", "max_replicas": 3}]}]})");
  const EffectiveConfig j = load_ok({.configmap_dir = std::nullopt, .file = json, .env = {}, .flags = {}});
  CHECK(j.config.tick_s == 15);
  CHECK(j.config.slo.itl_ms == 60);
  REQUIRE(j.config.models.size() == 1);
  CHECK(j.config.models[0].variants[0].spec.max_replicas == 3);
}

TEST_CASE("sim paths are relative to the file that set them, and as given from env and flags") {
  TempConfigDir dir;
  dir.write("etc/traces/a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n");
  dir.write("b.csv", "");
  const std::string file = dir.write("etc/capstan.yaml", "sim_trace: traces/a.csv\nsim_fleet: " + dir.path() + "/b.csv\n");
  const EffectiveConfig e = load_ok({.configmap_dir = std::nullopt, .file = file, .env = {}, .flags = {}});
  CHECK(e.config.sim_trace == dir.path() + "/etc/traces/a.csv");
  CHECK(e.config.sim_fleet == dir.path() + "/b.csv");  // absolute stays
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto f = load_config({.configmap_dir = std::nullopt, .file = file, .env = {}, .flags = {{"sim_trace", "b.csv"}}});
  std::filesystem::current_path(cwd);
  REQUIRE(f.ok());
  CHECK(f->config.sim_trace == "b.csv");
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = std::nullopt, .env = {{"CAPSTAN_FLEET", "/nonexistent/f.yaml"}},
                       .flags = {}}) == "env CAPSTAN_FLEET: sim_fleet must name a file, got '/nonexistent/f.yaml' (no such file)");
}

TEST_CASE("policy_config_for applies a model's overrides over the fleet knobs") {
  TempConfigDir dir;
  dir.write("cm/wva-model-scale-to-zero-config/default", "enable_scale_to_zero: true\nretention_period: 5m\n");
  dir.write("cm/wva-model-scale-to-zero-config/keep-warm", "model_id: m\nenable_scale_to_zero: false\n");
  const std::string file = dir.write("c.yaml", R"(
slo: {ttft_ms: 2000, itl_ms: 100}
slo_attainment: 0.95
slo_multiplier: 3
gpu_budget: 16
models:
  - {model_id: m, namespace: prod, slo: {ttft_ms: 500, itl_ms: 50}, slo_attainment: 0.99, slo_multiplier: 4}
)");
  const DaemonConfig c = load_ok({.configmap_dir = dir.path() + "/cm", .file = file, .env = {}, .flags = {}}).config;

  const PolicyConfig prod = policy_config_for(c, {"prod", "m"});
  CHECK(prod.slo == SloTargets{500, 50});
  CHECK(prod.tail_probability == Approx(0.01));
  CHECK(prod.slo_multiplier == 4);
  CHECK(prod.scale_to_zero_retention_s == 0);  // the any-namespace entry turns it off for m
  CHECK(prod.gpu_budget == 16);                // fleet knobs stay

  const PolicyConfig staging = policy_config_for(c, {"staging", "m"});  // only the any-namespace entry
  CHECK(staging.slo == SloTargets{2000, 100});
  CHECK(staging.scale_to_zero_retention_s == 0);

  const PolicyConfig other = policy_config_for(c, {"prod", "other"});  // no entry: the fleet's
  CHECK(other.slo == SloTargets{2000, 100});
  CHECK(other.tail_probability == Approx(0.05));
  CHECK(other.slo_multiplier == 3);
  CHECK(other.scale_to_zero_retention_s == 300);
  CHECK(find_model(c, {"prod", "m"}) != nullptr);
  CHECK(find_model(c, {"prod", "other"}) == nullptr);
}

TEST_CASE("Each invalid configuration file is refused naming the file, the key and the rule") {
  CHECK_THAT(file_error("tick: 30s\n"), StartsWith("file P: tick is not a known key (known: policy, tick_s, data_dir,"));
  CHECK_THAT(file_error("slo:\n  ttft: 5\n"), StartsWith("file P: slo.ttft is not a known key (known: "));
  CHECK(file_error("tick_s: [1, 2]\n") == "file P: tick_s must be a single value, got a list");
  CHECK(file_error("tick_s:\n") == "file P: tick_s must have a value, got nothing");
  CHECK(file_error("speedup: .nan\n") == "file P: speedup must be a finite number, got '.nan'");
  CHECK(file_error("hpa_target_per_replica: .inf\n") == "file P: hpa_target_per_replica must be a finite number, got '.inf'");
  CHECK(file_error("scale_down_cooldown_s: -5s\n") ==
        "file P: scale_down_cooldown_s must be a duration in [0, 31536000] (30s, 5m, 500ms, 1h or seconds), got '-5s'");
  CHECK(file_error("gpu_budget: -1\n") == "file P: gpu_budget must be an integer in [0, 2147483647], got '-1'");
  CHECK(file_error("tick_s: soon\n") ==
        "file P: tick_s must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got 'soon'");
  CHECK(file_error("tick_s: 0\n") ==
        "file P: tick_s must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got '0'");
  CHECK(file_error("slo_attainment: 1\n") == "file P: slo_attainment must be a finite number in (0, 1), got '1'");
  CHECK(file_error("slo_multiplier: 0.8\n") == "file P: slo_multiplier must be a finite number in (1, 1000000], got '0.8'");
  CHECK(file_error("sync_per_tick: maybe\n") == "file P: sync_per_tick must be true or false, got 'maybe'");
  CHECK_THAT(file_error("policy: magic\n"), StartsWith("file P: policy must be one of hybrid, "));
  CHECK(file_error("connector: kubernetes\n") == "file P: connector must be one of sim, dry-run, advisory, got 'kubernetes'");
  CHECK(file_error("metrics_source: prometheus\n") == "file P: metrics_source must be one of sim, got 'prometheus'");
  CHECK(file_error("log_format: xml\n") == "file P: log_format must be one of text, json, got 'xml'");
  CHECK(file_error("predictor: oracle\n") ==
        "file P: predictor must be one of constant, holt, kalman, arima, seasonal, got 'oracle'");
  CHECK(file_error("pd_band: {min_prefill_per_decode: 2, max_prefill_per_decode: 1}\n") ==
        "file P: pd_band: P:D band minimum 2 is above its maximum 1");
  CHECK(file_error("- tick_s\n") == "file P: the document must be a mapping of keys");
  CHECK_THAT(file_error("tick_s: [\n"), StartsWith("file P: line "));
}

TEST_CASE("Each invalid model or variant entry is refused naming its place in the file") {
  CHECK(file_error("models: {model_id: m}\n") == "file P: models must be a list");
  CHECK(file_error("models:\n  - namespace: ns\n") == "file P: models[0].model_id is required");
  CHECK_THAT(file_error("models:\n  - {model_id: m, replicas: 3}\n"),
             StartsWith("file P: models[0].replicas is not a known key (known: model_id, namespace,"));
  CHECK(file_error("models:\n  - {model_id: m}\n  - {model_id: m}\n") ==
        "file P: models[1].model_id must be unique per namespace, got 'm' twice in namespace 'default'");
  CHECK(file_error("models:\n  - {model_id: m, slo: {ttft_ms: -1}}\n") ==
        "file P: models[0].slo.ttft_ms must be a finite number in [0, 1000000000], got '-1'");
  CHECK(file_error("models:\n  - {model_id: m, priority: high}\n") ==
        "file P: models[0].priority must be an integer in [0, 1000000], got 'high'");
  CHECK(file_error("models:\n  - {model_id: m, variants: {name: v}}\n") == "file P: models[0].variants must be a list");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{max_replicas: 2}]}\n") ==
        "file P: models[0].variants[0].name is required");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: v, min_replicas: 5, max_replicas: 2}]}\n") ==
        "file P: models[0].variants[0].min_replicas must be <= max_replicas (2), got 5");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: v}, {name: v}]}\n") ==
        "file P: models[0].variants[1].name must be unique in its model, got 'v' twice");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: v, role: both-ways}]}\n") ==
        "file P: models[0].variants[0].role must be one of both, prefill, decode, got 'both-ways'");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: p, role: prefill}, {name: b}]}\n") ==
        "file P: models[0].variants[1].role must be prefill or decode in a disaggregated model (variants[0] is prefill), "
        "got 'both'");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: d, role: decode}]}\n") ==
        "file P: models[0].variants[0].role is decode, so the model needs a variant with role: prefill too");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: v, gpus_per_replica: 0}]}\n") ==
        "file P: models[0].variants[0].gpus_per_replica must be an integer in [1, 1024], got '0'");
  CHECK(file_error("models:\n  - {model_id: m, variants: [{name: v, cold_start_s: .nan}]}\n") ==
        "file P: models[0].variants[0].cold_start_s must be a duration in [0, 86400] (30s, 5m, 500ms, 1h or seconds), "
        "got '.nan'");
  CHECK_THAT(file_error("models:\n  - {model_id: m, variants: [{name: v, max_replica: 3}]}\n"),
             StartsWith("file P: models[0].variants[0].max_replica is not a known key (known: name, scale_target,"));
}

TEST_CASE("A P:D band broken across layers is refused naming the layer that set the later bound") {
  TempConfigDir dir;
  const std::string file = dir.write("c.yaml", "pd_band: {min_prefill_per_decode: 2}\n");
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = file, .env = {{"CAPSTAN_PD_BAND_MAX", "1"}}, .flags = {}}) ==
        "env CAPSTAN_PD_BAND_MAX: pd_band: P:D band minimum 2 is above its maximum 1");
}

TEST_CASE("A bad environment variable or flag is refused naming it") {
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = std::nullopt, .env = {{"CAPSTAN_TICK", "0"}}, .flags = {}}) ==
        "env CAPSTAN_TICK must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got '0'");
  CHECK_THAT(sources_error({.configmap_dir = std::nullopt, .file = std::nullopt, .env = {{"CAPSTAN_TIK", "5"}}, .flags = {}}),
             StartsWith("env CAPSTAN_TIK is not a known variable (known: CAPSTAN_CONFIG, CAPSTAN_CONFIGMAP_DIR, "
                        "CAPSTAN_POLICY, CAPSTAN_TICK,"));
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = std::nullopt, .env = {}, .flags = {{"seed", "-1"}}}) ==
        "flag --seed must be an integer >= 0, got '-1'");
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = std::nullopt, .env = {}, .flags = {{"speedup", "fast"}}}) ==
        "flag --speedup must be a finite number in (0, 1000000], got 'fast'");
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = "/nonexistent/capstan.yaml", .env = {}, .flags = {}}) ==
        "file /nonexistent/capstan.yaml: cannot open file");
  // CAPSTAN_CONFIG names a source (config_flags reads it), not a key.
  CHECK(sources_error({.configmap_dir = std::nullopt, .file = std::nullopt, .env = {{"CAPSTAN_CONFIG", "x.yaml"}}, .flags = {}}) ==
        "(loaded)");
}

TEST_CASE("The recorded form holds every key, the models and an origin per key") {
  TempConfigDir dir;
  const EffectiveConfig e = load_ok({.configmap_dir = std::nullopt, .file = dir.write("c.yaml", kModelsFile), .env = {}, .flags = {}});
  const nlohmann::json j = to_json(e);
  CHECK(j["config"]["tick_s"] == 30.0);
  CHECK(j["config"]["slo"]["ttft_ms"] == PolicyConfig{}.slo.ttft_ms);
  CHECK(j["config"]["pd_band"]["min_prefill_per_decode"] == 0.0);
  CHECK(j["config"]["sync_per_tick"] == true);
  CHECK(j["config"]["models"][0]["variants"][0]["cold_start_s"] == 240.0);
  CHECK(j["config"]["models"][1]["slo"].is_null());
  CHECK(j["origins"]["tick_s"] == "default");
  CHECK(j["origins"]["models[0]"] == "file " + dir.path() + "/c.yaml");
}
