// The enforcer, the last per-model stage of the WVA pipeline (seed 002, "Enforcer"; the
// scale-down cooldown of seed 004, "Stability First"). It turns one model's requests into
// decisions, in this order:
//   1. scale to zero / keep one replica (domain/stages/scale_to_zero.hpp);
//   2. pending guard: a variant whose previous target has not landed keeps that target;
//   3. scale-down cooldown: no scale-down within cooldown_s of the variant's last change,
//      and, with a stabilization window, no lower than the highest target asked for in it;
//   4. min/max bounds, which win over everything above.
// Scale-ups are never delayed. The GPU budget across models is the step after this one
// (share_gpu_budget in domain/stages/gpu_budget.hpp). Time is the caller's now_s; what must be
// remembered between ticks is the returned EnforcerState.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"
#include "domain/stages/scale_to_zero.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

struct EnforcerConfig {
  double scale_down_cooldown_s = 300;  // after any change of the variant; >= 0
  double stabilization_window_s = 0;   // 0: off; >= 0
};

std::optional<Error> validate(const EnforcerConfig& config);

struct TargetSample {
  double t_s = 0;
  int target_replicas = 0;

  bool operator==(const TargetSample&) const = default;
};

struct VariantEnforcerState {
  std::optional<double> last_change_s;  // when a decision last changed the replica count
  std::vector<TargetSample> recent_targets;  // inside the stabilization window, oldest first

  bool operator==(const VariantEnforcerState&) const = default;
};

struct EnforcerState {
  std::map<std::string, VariantEnforcerState> variants;

  bool operator==(const EnforcerState&) const = default;
};

void to_json(nlohmann::json& j, const EnforcerState& state);
void from_json(const nlohmann::json& j, EnforcerState& state);

struct EnforcerInput {
  ModelKey model;
  std::span<const VariantState> variants;
  std::span<const ScalingRequest> requests;  // by variant name; a variant without one holds
  ScaleToZeroPolicy scale_to_zero;
  std::optional<double> requests_in_retention;  // over scale_to_zero.retention_s; nullopt: unknown
};

struct EnforcerStep {
  std::vector<Decision> decisions;  // one per variant, in input order
  EnforcerState state;
};

// Errors (kInvalidArgument) on an invalid config, a non-finite now_s, a negative request
// count or a request for a variant the model does not have.
Result<EnforcerStep> enforce(const EnforcerInput& input, const EnforcerConfig& config,
                             const EnforcerState& state, double now_s);

}  // namespace capstan
