// The daemon's configuration (issue 21, item 5): what `capstan run` reads, layered
//   built-in defaults < ConfigMap directory < --config FILE < CAPSTAN_* environment < flags
// (the order WVA resolves its own configuration in, seed 002 "Configuration"), with the
// layer that set every value kept beside it, so `capstan config print` and the
// config_applied event can say where each value came from.
//
// The fleet-wide policy knobs are the domain's PolicySettings (the same ones `simulate`
// turns into a PolicyConfig); a model may override its SLO, attainment, sloMultiplier
// and scale-to-zero retention (WVA's per-model ConfigMap entries, matched by model_id +
// namespace). config/README.md lists every key, its environment variable and flag.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"
#include "domain/model/slo_targets.hpp"
#include "domain/tick/policy_config.hpp"
#include "domain/tick/policy_settings.hpp"

namespace capstan::config {

enum class Layer { kDefault, kConfigMap, kFile, kEnv, kFlag };
const char* to_string(Layer layer);  // "default", "configmap", "file", "env", "flag"

// Where a value came from: "default", "configmap DIR/KEY", "file PATH", "env CAPSTAN_TICK",
// "flag --tick".
struct Origin {
  Layer layer = Layer::kDefault;
  std::string where = "default";
};

struct VariantEntry {
  std::string name;
  std::string scale_target;  // what the connector scales (e.g. "deployment/llama-8b-h100"); the name if not set
  std::string accelerator;   // e.g. "H100"; informational
  VariantSpec spec;
  double cold_start_s = 0;   // the configured cold start, before one is learned
};

struct ModelEntry {
  ModelKey key;
  int priority = 1;  // the GPU budget goes to higher priorities first
  std::optional<SloTargets> slo;
  std::optional<double> slo_attainment;
  std::optional<double> slo_multiplier;
  std::optional<double> scale_to_zero_retention_s;  // 0 = scale to zero off for this model
  // Empty for an entry that only overrides knobs of a model another source declares
  // (the sim fleet, a WVA per-model ConfigMap entry).
  std::vector<VariantEntry> variants;
  // An entry without a namespace (WVA's scale-to-zero ConfigMap allows one) overrides
  // the model of that id in every namespace; key.ns is then empty.
  bool any_namespace = false;
};

// Fleet-wide policy knobs come from PolicySettings (slo, slo_attainment, slo_multiplier,
// client_timeout_s, scale_down_cooldown_s, scale_to_zero_retention_s, gpu_budget, pd_band,
// max_step_up, max_step_down, predictor, hpa_target_per_replica).
struct DaemonConfig : PolicySettings {
  std::string policy = "hybrid";
  double tick_s = 30;
  std::string data_dir = "./capstan-data";
  std::string metrics_source = "sim";  // only "sim" exists now; Prometheus etc. follow in their own issue
  std::string connector = "sim";       // "sim" | "dry-run" | "advisory"
  std::string log_format = "text";     // "text" | "json"
  std::string clock = "wall";          // "wall" | "virtual"
  double speedup = 1;                  // virtual seconds per wall second with clock wall on the sim source
  bool sync_per_tick = true;
  int snapshot_every_ticks = 20;
  double retention_max_age_s = 0;      // 0 = keep everything
  std::uint64_t retention_max_bytes = 0;
  double actuation_timeout_s = 10;
  int actuation_retries = 3;
  double model_timeout_s = 5;          // a model that does not answer holds its last good decision
  // The admin HTTP API (adapters/admin/): host:port each, "0" = off.
  std::string admin_bind = "127.0.0.1:8090";
  std::string admin_token_file;        // set: every path but /healthz and /readyz needs its bearer token
  std::string metrics_bind_address = "127.0.0.1:8080";
  std::string health_probe_bind_address = "127.0.0.1:8081";
  // The sim source: paths relative to the file (or ConfigMap directory) that set them.
  std::string sim_trace, sim_fleet;
  std::uint64_t seed = 1;
  // May be empty with the sim source: the run takes the models from the sim fleet.
  std::vector<ModelEntry> models;
};

struct EffectiveConfig {
  DaemonConfig config;
  std::map<std::string, Origin> origins;  // key path -> the layer that set it, for every value
};

struct ConfigSources {
  std::optional<std::string> configmap_dir;
  std::optional<std::string> file;
  std::vector<std::pair<std::string, std::string>> env;    // the CAPSTAN_* variables (the caller passes environ)
  std::vector<std::pair<std::string, std::string>> flags;  // key path -> value, from config_flags
};

// defaults < configmap < file < env < flags. Errors name the file (or env variable or
// flag), the key and the rule: "file capstan.yaml: tick_s must be a duration ...".
Result<EffectiveConfig> load_config(const ConfigSources& sources);

// The model's entry: the one with its key, else one for its id in any namespace; nullptr.
const ModelEntry* find_model(const DaemonConfig& config, const ModelKey& model);

// The fleet knobs with the model's overrides (SLO, attainment, sloMultiplier,
// scale-to-zero retention): an any-namespace entry first, the exact entry over it.
PolicyConfig policy_config_for(const DaemonConfig& config, const ModelKey& model);

// {"config": {...}, "origins": {key: "layer where"}}: what the config_applied event records.
nlohmann::json to_json(const EffectiveConfig& effective);

}  // namespace capstan::config
