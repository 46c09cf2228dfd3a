#include "domain/stages/enforcer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "domain/core/format.hpp"
#include "domain/model/saturation_thresholds.hpp"

namespace capstan {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

std::optional<Error> validate_input(const EnforcerInput& in, double now_s) {
  if (!std::isfinite(now_s)) return invalid_argument("now_s must be finite, got " + fmt_num(now_s));
  if (in.requests_in_retention) {
    if (auto err = check_in_range("requests_in_retention", *in.requests_in_retention, 0,
                                  kUnbounded)) {
      return err;
    }
  }
  for (const auto& r : in.requests) {
    if (find_variant(in.variants, r.variant) == nullptr) {
      return invalid_argument(in.model.model_id + ": request for unknown variant \"" + r.variant +
                              "\"");
    }
  }
  return std::nullopt;
}

// One request per variant, in variant order.
std::vector<ScalingRequest> align(const EnforcerInput& in) {
  std::vector<ScalingRequest> out;
  for (const auto& v : in.variants) {
    auto it = std::find_if(in.requests.begin(), in.requests.end(),
                           [&](const ScalingRequest& r) { return r.variant == v.spec.name; });
    if (it != in.requests.end()) {
      ScalingRequest r = *it;
      r.current_replicas = v.current_replicas;
      out.push_back(std::move(r));
    } else {
      out.push_back(hold(v.spec.name, v.current_replicas,
                         make_reason(ReasonCode::kHold, "enforcer.no_request",
                                     {{"current", v.current_replicas}, {"target", v.current_replicas}})));
    }
  }
  return out;
}

void remember(VariantEnforcerState& s, const EnforcerConfig& c, double now_s, int target) {
  auto& samples = s.recent_targets;
  samples.erase(std::remove_if(samples.begin(), samples.end(),
                               [&](const TargetSample& x) {
                                 return x.t_s <= now_s - c.stabilization_window_s;
                               }),
                samples.end());
  if (c.stabilization_window_s > 0) samples.push_back({now_s, target});
}

// Holds a scale-down inside the cooldown, or raises it to the window's highest target.
void slow_scale_down(ScalingRequest& r, const VariantEnforcerState& s, const EnforcerConfig& c,
                     double now_s) {
  if (r.target_replicas >= r.current_replicas) return;
  if (s.last_change_s && now_s - *s.last_change_s < c.scale_down_cooldown_s) {
    r.reason = make_reason(ReasonCode::kCooldown, "enforcer.cooldown",
                           {{"current", r.current_replicas},
                            {"target", r.current_replicas},
                            {"wanted", r.target_replicas},
                            {"since_change_s", now_s - *s.last_change_s},
                            {"cooldown_s", c.scale_down_cooldown_s}},
                           {std::move(r.reason)});
    r.target_replicas = r.current_replicas;
    return;
  }
  int highest = r.target_replicas;
  for (const auto& x : s.recent_targets) highest = std::max(highest, x.target_replicas);
  highest = std::min(highest, r.current_replicas);
  if (highest > r.target_replicas) {
    r.reason = make_reason(ReasonCode::kCooldown, "enforcer.stabilization",
                           {{"current", r.current_replicas},
                            {"target", highest},
                            {"wanted", r.target_replicas},
                            {"window_s", c.stabilization_window_s}},
                           {std::move(r.reason)});
    r.target_replicas = highest;
  }
}

void clamp_to_bounds(ScalingRequest& r, const VariantSpec& spec) {
  if (r.target_replicas < spec.min_replicas) {
    r.target_replicas = spec.min_replicas;
    r.reason = make_reason(ReasonCode::kMinReplicas, "bounds.min",
                           {{"current", r.current_replicas}, {"target", r.target_replicas}, {"min_replicas", spec.min_replicas}},
                           {std::move(r.reason)});
  } else if (r.target_replicas > spec.max_replicas) {
    r.target_replicas = spec.max_replicas;
    r.reason = make_reason(ReasonCode::kMaxReplicas, "bounds.max",
                           {{"current", r.current_replicas}, {"target", r.target_replicas}, {"max_replicas", spec.max_replicas}},
                           {std::move(r.reason)});
  }
}

}  // namespace

std::optional<Error> validate(const EnforcerConfig& c) {
  if (auto err = check_in_range("scale_down_cooldown_s", c.scale_down_cooldown_s, 0, kUnbounded)) {
    return err;
  }
  return check_in_range("stabilization_window_s", c.stabilization_window_s, 0, kUnbounded);
}

void to_json(nlohmann::json& j, const EnforcerState& state) {
  j = nlohmann::json::object();
  for (const auto& [name, v] : state.variants) {
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& x : v.recent_targets) samples.push_back({x.t_s, x.target_replicas});
    j[name] = {{"last_change_s", v.last_change_s ? nlohmann::json(*v.last_change_s) : nullptr},
               {"recent_targets", samples}};
  }
}

void from_json(const nlohmann::json& j, EnforcerState& state) {
  state.variants.clear();
  for (const auto& [name, v] : j.items()) {
    VariantEnforcerState s;
    if (!v.at("last_change_s").is_null()) s.last_change_s = v.at("last_change_s").get<double>();
    for (const auto& x : v.at("recent_targets")) {
      s.recent_targets.push_back({x.at(0).get<double>(), x.at(1).get<int>()});
    }
    state.variants[name] = std::move(s);
  }
}

Result<EnforcerStep> enforce(const EnforcerInput& in, const EnforcerConfig& config,
                             const EnforcerState& state, double now_s) {
  if (auto err = validate(config)) return *err;
  if (auto err = validate_input(in, now_s)) return *err;

  auto requests = apply_scale_to_zero(in.variants, align(in), in.scale_to_zero,
                                      in.requests_in_retention);
  EnforcerStep step;
  for (std::size_t i = 0; i < in.variants.size(); ++i) {
    const VariantState& v = in.variants[i];
    ScalingRequest& r = requests[i];
    VariantEnforcerState s = state.variants.count(v.spec.name) ? state.variants.at(v.spec.name)
                                                               : VariantEnforcerState{};
    const std::optional<double> previous_change = s.last_change_s;
    remember(s, config, now_s, r.target_replicas);

    if (in_flight(v) && r.target_replicas != *v.desired_replicas) {
      r.reason = make_reason(ReasonCode::kPendingGuard, "enforcer.in_flight",
                             {{"current", v.current_replicas}, {"target", *v.desired_replicas}, {"wanted", r.target_replicas}},
                             {std::move(r.reason)});
      r.target_replicas = *v.desired_replicas;
    } else {
      slow_scale_down(r, s, config, now_s);
    }
    clamp_to_bounds(r, v.spec);

    const bool continues_in_flight = in_flight(v) && r.target_replicas == *v.desired_replicas;
    s.last_change_s = (r.target_replicas != v.current_replicas && !continues_in_flight)
                          ? std::optional<double>(now_s)
                          : previous_change;
    step.state.variants[v.spec.name] = std::move(s);
    step.decisions.push_back(to_decision(in.model, r));
  }
  return step;
}

}  // namespace capstan
