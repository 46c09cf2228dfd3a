// The table of scalar settings; see config_keys.hpp.
#include "config/config_keys.hpp"

#include <limits>

#include "domain/forecast/predictor.hpp"
#include "domain/policies/policy.hpp"

namespace capstan::config {
namespace {

constexpr double kNone = std::numeric_limits<double>::max();
constexpr double kDay = 86400;

ValueRule number(double min, double max = kNone, bool min_open = false) { return number_rule(min, max, min_open); }
ValueRule duration(double min, bool min_open = false, double max = 365 * kDay) {
  return duration_rule(min, max, min_open);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const PolicyInfo& p : registered_policies()) names.push_back(p.name);
  return names;
}

std::vector<std::string> predictor_names() {
  std::vector<std::string> names;
  for (PredictorKind k : all_predictor_kinds()) names.emplace_back(to_string(k));
  return names;
}

#define CAPSTAN_FIELD(member) +[](DaemonConfig& c) -> auto& { return c.member; }

std::vector<ConfigKey> make_keys() {
  constexpr double kMaxInt = std::numeric_limits<int>::max();
  return {
      {"policy", "CAPSTAN_POLICY", "--policy", choice_rule(policy_names()), CAPSTAN_FIELD(policy)},
      {"tick_s", "CAPSTAN_TICK", "--tick", duration(0, true, kDay), CAPSTAN_FIELD(tick_s)},
      {"data_dir", "CAPSTAN_DATA_DIR", "--data-dir", kind_rule(ValueKind::kText), CAPSTAN_FIELD(data_dir)},
      {"metrics_source", "CAPSTAN_METRICS_SOURCE", "--metrics-source", choice_rule({"sim"}), CAPSTAN_FIELD(metrics_source)},
      {"connector", "CAPSTAN_CONNECTOR", "--connector", choice_rule({"sim", "dry-run", "advisory"}), CAPSTAN_FIELD(connector)},
      {"log_format", "CAPSTAN_LOG_FORMAT", "--log-format", choice_rule({"text", "json"}), CAPSTAN_FIELD(log_format)},
      {"clock", "CAPSTAN_CLOCK", "--clock", choice_rule({"wall", "virtual"}), CAPSTAN_FIELD(clock)},
      {"speedup", "CAPSTAN_SPEEDUP", "--speedup", number(0, 1e6, true), CAPSTAN_FIELD(speedup)},
      {"sync_per_tick", "CAPSTAN_SYNC_PER_TICK", "", kind_rule(ValueKind::kBoolean), CAPSTAN_FIELD(sync_per_tick)},
      {"snapshot_every_ticks", "CAPSTAN_SNAPSHOT_EVERY_TICKS", "", integer_rule(1, kMaxInt),
       CAPSTAN_FIELD(snapshot_every_ticks)},
      {"retention_max_age_s", "CAPSTAN_RETENTION_MAX_AGE", "", duration(0, false, 100 * 365 * kDay),
       CAPSTAN_FIELD(retention_max_age_s)},
      {"retention_max_bytes", "CAPSTAN_RETENTION_MAX_BYTES", "", kind_rule(ValueKind::kUnsigned),
       CAPSTAN_FIELD(retention_max_bytes)},
      {"actuation_timeout_s", "CAPSTAN_ACTUATION_TIMEOUT", "", duration(0, true, kDay),
       CAPSTAN_FIELD(actuation_timeout_s)},
      {"actuation_retries", "CAPSTAN_ACTUATION_RETRIES", "", integer_rule(0, 100), CAPSTAN_FIELD(actuation_retries)},
      {"model_timeout_s", "CAPSTAN_MODEL_TIMEOUT", "", duration(0, true, kDay), CAPSTAN_FIELD(model_timeout_s)},
      {"admin_bind", "CAPSTAN_ADMIN_BIND", "--admin-bind", kind_rule(ValueKind::kText), CAPSTAN_FIELD(admin_bind)},
      {"admin_token_file", "CAPSTAN_ADMIN_TOKEN_FILE", "--admin-token-file", kind_rule(ValueKind::kPath),
       CAPSTAN_FIELD(admin_token_file)},
      {"metrics_bind_address", "CAPSTAN_METRICS_BIND_ADDRESS", "--metrics-bind-address", kind_rule(ValueKind::kText),
       CAPSTAN_FIELD(metrics_bind_address)},
      {"health_probe_bind_address", "CAPSTAN_HEALTH_PROBE_BIND_ADDRESS", "--health-probe-bind-address",
       kind_rule(ValueKind::kText), CAPSTAN_FIELD(health_probe_bind_address)},
      {"sim_trace", "CAPSTAN_TRACE", "--trace", kind_rule(ValueKind::kPath), CAPSTAN_FIELD(sim_trace)},
      {"sim_fleet", "CAPSTAN_FLEET", "--fleet", kind_rule(ValueKind::kPath), CAPSTAN_FIELD(sim_fleet)},
      {"seed", "CAPSTAN_SEED", "--seed", kind_rule(ValueKind::kUnsigned), CAPSTAN_FIELD(seed)},
      // The fleet-wide policy knobs: PolicyConfig's ranges (domain/codec/policy_config_codec.hpp).
      {"slo.ttft_ms", "CAPSTAN_SLO_TTFT_MS", "--slo-ttft-ms", slo_target_rule(), CAPSTAN_FIELD(slo.ttft_ms)},
      {"slo.itl_ms", "CAPSTAN_SLO_ITL_MS", "--slo-itl-ms", slo_target_rule(), CAPSTAN_FIELD(slo.itl_ms)},
      {"slo_attainment", "CAPSTAN_SLO_ATTAINMENT", "", attainment_rule(),
       CAPSTAN_FIELD(slo_attainment)},
      {"slo_multiplier", "CAPSTAN_SLO_MULTIPLIER", "", slo_multiplier_rule(), CAPSTAN_FIELD(slo_multiplier)},
      {"scale_down_cooldown_s", "CAPSTAN_SCALE_DOWN_COOLDOWN", "", duration(0), CAPSTAN_FIELD(scale_down_cooldown_s)},
      {"scale_to_zero_retention_s", "CAPSTAN_SCALE_TO_ZERO_RETENTION", "", retention_rule(),
       CAPSTAN_FIELD(scale_to_zero_retention_s)},
      {"gpu_budget", "CAPSTAN_GPU_BUDGET", "", integer_rule(0, kMaxInt), CAPSTAN_FIELD(gpu_budget)},
      {"max_step_up", "CAPSTAN_MAX_STEP_UP", "", integer_rule(0, kMaxInt), CAPSTAN_FIELD(max_step_up)},
      {"max_step_down", "CAPSTAN_MAX_STEP_DOWN", "", integer_rule(0, kMaxInt), CAPSTAN_FIELD(max_step_down)},
      {"pd_band.min_prefill_per_decode", "CAPSTAN_PD_BAND_MIN", "", number(0, 1e6),
       CAPSTAN_FIELD(pd_band.min_prefill_per_decode)},
      {"pd_band.max_prefill_per_decode", "CAPSTAN_PD_BAND_MAX", "", number(0, 1e6),
       CAPSTAN_FIELD(pd_band.max_prefill_per_decode)},
      {"predictor", "CAPSTAN_PREDICTOR", "", choice_rule(predictor_names()), CAPSTAN_FIELD(predictor)},
      {"client_timeout_s", "CAPSTAN_CLIENT_TIMEOUT", "", duration(0), CAPSTAN_FIELD(client_timeout_s)},
      {"hpa_target_per_replica", "CAPSTAN_HPA_TARGET_PER_REPLICA", "", number(0, 1e6, true),
       CAPSTAN_FIELD(hpa_target_per_replica)},
  };
}

#undef CAPSTAN_FIELD

template <class Match>
const ConfigKey* find_by(Match match) {
  for (const ConfigKey& k : config_keys())
    if (match(k)) return &k;
  return nullptr;
}

}  // namespace

ValueRule priority_rule() { return integer_rule(0, 1e6); }
ValueRule slo_target_rule() { return number_rule(0, 1e9); }
ValueRule attainment_rule() { return number_rule(0, 1, true, true); }
ValueRule slo_multiplier_rule() { return number_rule(1, 1e6, true); }
ValueRule retention_rule() { return duration(0); }

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = make_keys();
  return keys;
}

const ConfigKey* find_key(const std::string& key) {
  return find_by([&](const ConfigKey& k) { return k.key == key; });
}
const ConfigKey* find_env(const std::string& env) {
  return find_by([&](const ConfigKey& k) { return k.env == env; });
}

void assign(DaemonConfig& config, const ConfigKey& key, const Value& value) {
  std::visit(
      [&](auto ref) {
        auto& field = ref(config);
        using T = std::decay_t<decltype(field)>;
        std::visit(
            [&](const auto& v) {
              using V = std::decay_t<decltype(v)>;
              if constexpr (std::is_same_v<T, std::string> == std::is_same_v<V, std::string>)
                field = static_cast<T>(v);
            },
            value);
      },
      key.field);
}

nlohmann::json value_json(const DaemonConfig& config, const ConfigKey& key) {
  DaemonConfig& readable = const_cast<DaemonConfig&>(config);  // the accessors only read here
  return std::visit([&](auto ref) { return nlohmann::json(ref(readable)); }, key.field);
}

}  // namespace capstan::config
