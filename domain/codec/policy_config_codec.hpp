// The recorded and configured form of a PolicyConfig (domain/tick/policy_config.hpp),
// and the ranges its knobs must lie in, shared by configuration files, command-line
// flags and recorded runs:
//
//   {"schema": 1, "slo": {"ttft_ms", "itl_ms"}, "slo_multiplier", "gpu_budget",
//    "scale_to_zero_retention_s", "scale_down_cooldown_s", "max_step_up", "max_step_down",
//    "pd_band": {"min_prefill_per_decode", "max_prefill_per_decode"}, "predictor",
//    "tail_probability", "client_timeout_s", "target_concurrency_per_replica"}
//
// Every field is required and no other is accepted (a misspelt knob is refused, not
// ignored). A value out of range is refused naming the field and the value:
// "slo_multiplier must be a finite number > 1, got 0.8".
#pragma once

#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/result.hpp"
#include "domain/tick/policy_config.hpp"

namespace capstan {

inline constexpr int kPolicyConfigSchema = 1;

// The first knob out of range, by the field names above, or nullopt.
//   slo.ttft_ms, slo.itl_ms         finite, >= 0 (0 = no constraint on that metric)
//   slo_multiplier                  finite, > 1
//   gpu_budget, max_step_up/down    >= 0 (0 = unlimited)
//   scale_to_zero_retention_s, scale_down_cooldown_s, client_timeout_s   finite, >= 0
//   pd_band                         RatioBand's rules (domain/stages/pd_ratio.hpp): each
//                                   bound finite and >= 0 (0 = no bound on that side),
//                                   min <= max when both are set
//   predictor                       a PredictorKind's name (domain/forecast/predictor.hpp)
//   tail_probability                in (0, 1)
//   target_concurrency_per_replica  finite, > 0
std::optional<Error> validate(const PolicyConfig& config);

nlohmann::json encode_policy_config(const PolicyConfig& config);
// Errors (kInvalidArgument) on a missing, unknown or malformed field, an unknown schema
// version, or a value validate() refuses.
Result<PolicyConfig> decode_policy_config(const nlohmann::json& json);

}  // namespace capstan
