#include "domain/codec/policy_config_codec.hpp"

#include <cmath>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/core/format.hpp"
#include "domain/forecast/predictor.hpp"
#include "domain/stages/pd_ratio.hpp"

namespace capstan {
namespace {

using nlohmann::json;

std::optional<Error> refuse(const std::string& field, const std::string& rule, double value) {
  return invalid_argument(field + " must be " + rule + ", got " + fmt_num(value));
}

// NaN fails every comparison, so each check is written as "not within range".
std::optional<Error> at_least_zero(const std::string& field, double value, const std::string& zero_means) {
  if (std::isfinite(value) && value >= 0) return std::nullopt;
  return refuse(field, "a finite number >= 0 (0 = " + zero_means + ")", value);
}

std::optional<Error> at_least_zero(const std::string& field, int value, const std::string& zero_means) {
  if (value >= 0) return std::nullopt;
  return refuse(field, "an integer >= 0 (0 = " + zero_means + ")", value);
}

std::optional<Error> validate_pd_band(const RatioBand& band) {
  const double lo = band.min_prefill_per_decode, hi = band.max_prefill_per_decode;
  if (auto e = at_least_zero("pd_band.min_prefill_per_decode", lo, "no lower bound")) return e;
  if (auto e = at_least_zero("pd_band.max_prefill_per_decode", hi, "no upper bound")) return e;
  if (lo > 0 && hi > 0 && lo > hi) {
    return invalid_argument("pd_band.min_prefill_per_decode " + fmt_num(lo) + " is above pd_band.max_prefill_per_decode " +
                            fmt_num(hi));
  }
  // The band's own rules have the last word, should they grow.
  if (auto e = validate(band)) return invalid_argument("pd_band: " + e->message);
  return std::nullopt;
}

// A misspelt knob would otherwise leave the real one missing with a less helpful error,
// or, were the real one optional, be silently ignored.
void expect_only(const FieldReader& r, std::initializer_list<const char*> fields) {
  for (const std::string& key : r.keys()) {
    bool known = false;
    for (const char* f : fields) known = known || key == f;
    if (!known) r.at(key).fail("is not a field of a policy config");
  }
}

}  // namespace

std::optional<Error> validate(const PolicyConfig& c) {
  if (auto e = at_least_zero("slo.ttft_ms", c.slo.ttft_ms, "no constraint on TTFT")) return e;
  if (auto e = at_least_zero("slo.itl_ms", c.slo.itl_ms, "no constraint on ITL")) return e;
  if (!(std::isfinite(c.slo_multiplier) && c.slo_multiplier > 1)) {
    return refuse("slo_multiplier", "a finite number > 1", c.slo_multiplier);
  }
  if (auto e = at_least_zero("gpu_budget", c.gpu_budget, "unlimited")) return e;
  if (auto e = at_least_zero("scale_to_zero_retention_s", c.scale_to_zero_retention_s, "scale to zero off")) return e;
  if (auto e = at_least_zero("scale_down_cooldown_s", c.scale_down_cooldown_s, "no cooldown")) return e;
  if (auto e = at_least_zero("max_step_up", c.max_step_up, "unlimited")) return e;
  if (auto e = at_least_zero("max_step_down", c.max_step_down, "unlimited")) return e;
  if (auto e = validate_pd_band(c.pd_band)) return e;
  PredictorKind kind{};
  if (!parse_predictor_kind(c.predictor, kind)) {
    return invalid_argument("predictor must be one of " + predictor_names() + ", got " + json(c.predictor).dump());
  }
  if (!(c.tail_probability > 0 && c.tail_probability < 1)) {
    return refuse("tail_probability", "in (0, 1)", c.tail_probability);
  }
  if (auto e = at_least_zero("client_timeout_s", c.client_timeout_s, "unknown")) return e;
  if (!(std::isfinite(c.target_concurrency_per_replica) && c.target_concurrency_per_replica > 0)) {
    return refuse("target_concurrency_per_replica", "a finite number > 0", c.target_concurrency_per_replica);
  }
  return std::nullopt;
}

json encode_policy_config(const PolicyConfig& c) {
  return {{"schema", kPolicyConfigSchema},
          {"slo", {{"ttft_ms", encode_number(c.slo.ttft_ms)}, {"itl_ms", encode_number(c.slo.itl_ms)}}},
          {"slo_multiplier", encode_number(c.slo_multiplier)},
          {"gpu_budget", c.gpu_budget},
          {"scale_to_zero_retention_s", encode_number(c.scale_to_zero_retention_s)},
          {"scale_down_cooldown_s", encode_number(c.scale_down_cooldown_s)},
          {"max_step_up", c.max_step_up},
          {"max_step_down", c.max_step_down},
          {"pd_band",
           {{"min_prefill_per_decode", encode_number(c.pd_band.min_prefill_per_decode)},
            {"max_prefill_per_decode", encode_number(c.pd_band.max_prefill_per_decode)}}},
          {"predictor", c.predictor},
          {"tail_probability", encode_number(c.tail_probability)},
          {"client_timeout_s", encode_number(c.client_timeout_s)},
          {"target_concurrency_per_replica", encode_number(c.target_concurrency_per_replica)}};
}

Result<PolicyConfig> decode_policy_config(const json& j) {
  auto read = decode_with<PolicyConfig>("policy config", [&] {
    const FieldReader r(j, "");
    expect_schema(r, kPolicyConfigSchema);
    expect_only(r, {"schema", "slo", "slo_multiplier", "gpu_budget", "scale_to_zero_retention_s",
                    "scale_down_cooldown_s", "max_step_up", "max_step_down", "pd_band", "predictor",
                    "tail_probability", "client_timeout_s", "target_concurrency_per_replica"});
    PolicyConfig c;
    const FieldReader slo = r.at("slo");
    expect_only(slo, {"ttft_ms", "itl_ms"});
    c.slo.ttft_ms = slo.at("ttft_ms").number();
    c.slo.itl_ms = slo.at("itl_ms").number();
    c.slo_multiplier = r.at("slo_multiplier").number();
    c.gpu_budget = r.at("gpu_budget").int32();
    c.scale_to_zero_retention_s = r.at("scale_to_zero_retention_s").number();
    c.scale_down_cooldown_s = r.at("scale_down_cooldown_s").number();
    c.max_step_up = r.at("max_step_up").int32();
    c.max_step_down = r.at("max_step_down").int32();
    const FieldReader band = r.at("pd_band");
    expect_only(band, {"min_prefill_per_decode", "max_prefill_per_decode"});
    c.pd_band.min_prefill_per_decode = band.at("min_prefill_per_decode").number();
    c.pd_band.max_prefill_per_decode = band.at("max_prefill_per_decode").number();
    c.predictor = r.at("predictor").string();
    c.tail_probability = r.at("tail_probability").number();
    c.client_timeout_s = r.at("client_timeout_s").number();
    c.target_concurrency_per_replica = r.at("target_concurrency_per_replica").number();
    return c;
  });
  if (!read) return read.error();
  if (auto e = validate(*read)) return invalid_argument("policy config: " + e->message);
  return read;
}

}  // namespace capstan
