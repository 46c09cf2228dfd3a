// Scale to and from zero (seed 002, "Scale To and From Zero"; "Enforcer").
//
// Whether a model may go to zero resolves per-model setting > global setting > the
// environment value (CAPSTAN_SCALE_TO_ZERO, read by the caller and passed in) > off;
// the retention period per-model > global > 10 minutes. When enabled and the model had
// no request in the retention period every variant goes to 0 -- unless a variant has
// min_replicas > 0, which skips the rule entirely. When disabled, a model whose targets
// sum to 0 keeps one replica on its cheapest variant. From zero: requests waiting in the
// EPP for a model with no replicas bring up one replica of its cheapest variant.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

inline constexpr double kDefaultRetentionS = 600;

struct ScaleToZeroSetting {
  std::optional<bool> enabled;        // unset: inherit
  std::optional<double> retention_s;  // unset: inherit; > 0 when set
};

enum class SettingSource { kModel, kGlobal, kEnvironment, kDefault };
const char* to_string(SettingSource source);

struct ScaleToZeroPolicy {
  bool enabled = false;
  double retention_s = kDefaultRetentionS;
  SettingSource enabled_from = SettingSource::kDefault;
  SettingSource retention_from = SettingSource::kDefault;
};

// environment_value: the raw CAPSTAN_SCALE_TO_ZERO text, nullopt when unset; "true"/"1"
// and "false"/"0" in any case, empty as unset. Errors name the offending setting.
Result<ScaleToZeroPolicy> resolve_scale_to_zero(const ScaleToZeroSetting& per_model,
                                                const ScaleToZeroSetting& global,
                                                std::optional<std::string_view> environment_value);

// Applies the idle rule (or keeps one replica) to one request per variant, matched by
// position. requests_in_retention: requests the model served over policy.retention_s;
// nullopt when unknown, which leaves the targets alone.
std::vector<ScalingRequest> apply_scale_to_zero(std::span<const VariantState> variants,
                                                std::vector<ScalingRequest> requests,
                                                const ScaleToZeroPolicy& policy,
                                                std::optional<double> requests_in_retention);

// One replica of the cheapest variant when every variant is at zero (and none is already
// on its way up) and requests wait in the EPP; nullopt otherwise.
std::optional<ScalingRequest> scale_from_zero(std::span<const VariantState> variants,
                                              double epp_queue_size);

}  // namespace capstan
