#include "domain/stages/scale_to_zero.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Result<std::optional<bool>> parse_environment(std::optional<std::string_view> value) {
  if (!value || value->empty()) return std::optional<bool>{};
  const std::string v = lowercase(*value);
  if (v == "true" || v == "1") return std::optional<bool>{true};
  if (v == "false" || v == "0") return std::optional<bool>{false};
  return invalid_argument("CAPSTAN_SCALE_TO_ZERO must be true or false, got \"" +
                          std::string(*value) + "\"");
}

std::optional<Error> check_retention(const char* level, const ScaleToZeroSetting& s) {
  if (!s.retention_s || (std::isfinite(*s.retention_s) && *s.retention_s > 0)) return std::nullopt;
  return invalid_argument(std::string(level) + " scale_to_zero retention_s must be > 0, got " +
                          fmt_num(*s.retention_s));
}

}  // namespace

const char* to_string(SettingSource source) {
  switch (source) {
    case SettingSource::kModel: return "model";
    case SettingSource::kGlobal: return "global";
    case SettingSource::kEnvironment: return "environment";
    case SettingSource::kDefault: return "default";
  }
  return "default";
}

Result<ScaleToZeroPolicy> resolve_scale_to_zero(const ScaleToZeroSetting& per_model,
                                                const ScaleToZeroSetting& global,
                                                std::optional<std::string_view> environment_value) {
  if (auto err = check_retention("per-model", per_model)) return *err;
  if (auto err = check_retention("global", global)) return *err;
  auto env = parse_environment(environment_value);
  if (!env.ok()) return env.error();

  ScaleToZeroPolicy p;
  if (per_model.enabled) {
    p.enabled = *per_model.enabled;
    p.enabled_from = SettingSource::kModel;
  } else if (global.enabled) {
    p.enabled = *global.enabled;
    p.enabled_from = SettingSource::kGlobal;
  } else if (env.value()) {
    p.enabled = *env.value();
    p.enabled_from = SettingSource::kEnvironment;
  }
  if (per_model.retention_s) {
    p.retention_s = *per_model.retention_s;
    p.retention_from = SettingSource::kModel;
  } else if (global.retention_s) {
    p.retention_s = *global.retention_s;
    p.retention_from = SettingSource::kGlobal;
  }
  return p;
}

std::vector<ScalingRequest> apply_scale_to_zero(std::span<const VariantState> variants,
                                                std::vector<ScalingRequest> requests,
                                                const ScaleToZeroPolicy& policy,
                                                std::optional<double> requests_in_retention) {
  const bool floor_set = std::any_of(variants.begin(), variants.end(),
                                     [](const VariantState& v) { return v.spec.min_replicas > 0; });
  if (policy.enabled) {
    // A variant with a floor keeps the model up: the rule is skipped, and the bounds
    // clamp keeps that floor.
    if (floor_set || !requests_in_retention || *requests_in_retention > 0) return requests;
    for (auto& r : requests) {
      r.reason = make_reason(r.current_replicas > 0 ? ReasonCode::kScaleToZero : ReasonCode::kHold, "zero.idle",
                             {{"current", r.current_replicas}, {"target", 0}, {"retention_s", policy.retention_s}},
                             {std::move(r.reason)});
      r.target_replicas = 0;
    }
    return requests;
  }
  int total = 0;
  for (const auto& r : requests) total += r.target_replicas;
  if (total > 0 || variants.empty()) return requests;
  const VariantState* keep = cheapest(variants, [](const VariantState&) { return true; });
  for (auto& r : requests) {
    if (r.variant != keep->spec.name) continue;
    r.target_replicas = 1;
    r.reason = make_reason(ReasonCode::kKeepOneReplica, "zero.keep_one", {{"current", r.current_replicas}, {"target", 1}},
                           {std::move(r.reason)});
  }
  return requests;
}

std::optional<ScalingRequest> scale_from_zero(std::span<const VariantState> variants,
                                              double epp_queue_size) {
  if (!(epp_queue_size > 0)) return std::nullopt;
  for (const auto& v : variants) {
    if (v.current_replicas > 0 || v.desired_replicas.value_or(0) > 0) return std::nullopt;
  }
  const VariantState* pick = cheapest(variants, [](const VariantState& v) {
    return v.spec.max_replicas > 0;
  });
  if (pick == nullptr) return std::nullopt;
  return ScalingRequest{pick->spec.name, 0, 1,
                        make_reason(ReasonCode::kScaleFromZero, "zero.wake",
                                    {{"current", 0}, {"target", 1}, {"waiting", epp_queue_size}})};
}

}  // namespace capstan
