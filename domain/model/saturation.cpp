#include "domain/model/saturation.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

struct SpareSummary {
  int replicas = 0;
  int saturated = 0;
  double avg_spare_kv = 0;
  double avg_spare_queue = 0;
};

SpareSummary summarize(std::span<const VariantState> variants, const SaturationThresholds& t) {
  SpareSummary s;
  double spare_kv = 0, spare_queue = 0;
  for (const auto& v : variants) {
    for (const PodMetrics* pod : ready_pods(v)) {
      ++s.replicas;
      if (saturated(*pod, t)) {
        ++s.saturated;
        continue;
      }
      spare_kv += t.kv_cache_threshold - pod->kv_usage;
      spare_queue += t.queue_length_threshold - pod->queue_length;
    }
  }
  const int free = s.replicas - s.saturated;
  if (free > 0) {
    s.avg_spare_kv = spare_kv / free;
    s.avg_spare_queue = spare_queue / free;
  }
  return s;
}

// Spreading the non-saturated replicas' load over one fewer raises it by N/(N-1); the
// spares left must still meet both triggers.
bool redistribution_keeps_headroom(const SpareSummary& s, const SaturationConfig& c) {
  const int n = s.replicas - s.saturated;
  if (n < kMinNonSaturatedForScaleDown) return false;
  const double factor = static_cast<double>(n) / (n - 1);
  const double kv_after = c.thresholds.kv_cache_threshold -
                          (c.thresholds.kv_cache_threshold - s.avg_spare_kv) * factor;
  const double queue_after = c.thresholds.queue_length_threshold -
                             (c.thresholds.queue_length_threshold - s.avg_spare_queue) * factor;
  return kv_after >= c.kv_spare_trigger && queue_after >= c.queue_spare_trigger;
}

std::string saturation_note(const SpareSummary& s) {
  return std::to_string(s.saturated) + " of " + std::to_string(s.replicas) +
         " replicas saturated";
}

std::string scale_up_cause(const SpareSummary& s, const SaturationConfig& c) {
  std::string cause;
  if (s.avg_spare_kv < c.kv_spare_trigger) {
    cause = "spare KV " + fmt_num(s.avg_spare_kv) + " below trigger " + fmt_num(c.kv_spare_trigger);
  }
  if (s.avg_spare_queue < c.queue_spare_trigger) {
    if (!cause.empty()) cause += " and ";
    cause += "spare queue " + fmt_num(s.avg_spare_queue) + " below trigger " +
             fmt_num(c.queue_spare_trigger);
  }
  return cause + " (" + saturation_note(s) + ")";
}

std::string scale_down_blocker(const SpareSummary& s) {
  const int n = s.replicas - s.saturated;
  if (n < kMinNonSaturatedForScaleDown) {
    return "scale-down needs " + std::to_string(kMinNonSaturatedForScaleDown) +
           " non-saturated replicas, have " + std::to_string(n);
  }
  return "moving the load of 1 of " + std::to_string(n) +
         " non-saturated replicas onto the rest would leave too little spare";
}

std::vector<ScalingRequest> hold_all(std::span<const VariantState> variants, ReasonCode code,
                                     const std::string& text) {
  std::vector<ScalingRequest> out;
  for (const auto& v : variants) out.push_back(hold(v.spec.name, v.current_replicas, code, text));
  return out;
}

// WVA blocks the whole model while any variant is in flight: capacity measured during a
// transition is incomplete. The in-flight variant keeps the target it was given.
std::vector<ScalingRequest> hold_while_transitioning(std::span<const VariantState> variants,
                                                     const VariantState& moving) {
  const std::string text = "no scaling while " + moving.spec.name + " is transitioning (desired " +
                           std::to_string(*moving.desired_replicas) + ", current " +
                           std::to_string(moving.current_replicas) + ")";
  std::vector<ScalingRequest> out = hold_all(variants, ReasonCode::kTransitioning, text);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (in_flight(variants[i])) out[i].target_replicas = *variants[i].desired_replicas;
  }
  return out;
}

void apply_change(std::vector<ScalingRequest>& requests, std::span<const VariantState> variants,
                  const VariantState& chosen, int target, ReasonCode code,
                  const std::string& cause) {
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (&variants[i] != &chosen) {
      requests[i].reason.text = "hold at " + std::to_string(variants[i].current_replicas) + ": " +
                                chosen.spec.name + " takes the change";
      continue;
    }
    requests[i].target_replicas = target;
    requests[i].reason = {code, describe_change(chosen.current_replicas, target) + ": " + cause};
  }
}

}  // namespace

std::optional<Error> validate(const SaturationConfig& c) {
  if (auto err = validate(c.thresholds)) return err;
  if (auto err = check_in_range("kv_spare_trigger", c.kv_spare_trigger, 0,
                                c.thresholds.kv_cache_threshold)) {
    return err;
  }
  return check_in_range("queue_spare_trigger", c.queue_spare_trigger, 0,
                        std::numeric_limits<double>::infinity());
}

Result<SaturationAnalysis> analyze_saturation(std::span<const VariantState> variants,
                                              const SaturationConfig& config) {
  if (auto err = validate(config)) return *err;
  const SpareSummary s = summarize(variants, config.thresholds);
  SaturationAnalysis a;
  a.replicas = s.replicas;
  a.saturated_replicas = s.saturated;
  a.avg_spare_kv = s.avg_spare_kv;
  a.avg_spare_queue = s.avg_spare_queue;

  if (s.replicas == 0) {
    a.requests = hold_all(variants, ReasonCode::kMetricsMissing,
                          "no ready replica reported KV usage or queue length");
    return a;
  }
  a.scale_up_needed =
      s.avg_spare_kv < config.kv_spare_trigger || s.avg_spare_queue < config.queue_spare_trigger;
  a.scale_down_safe = !a.scale_up_needed && redistribution_keeps_headroom(s, config);

  for (const auto& v : variants) {
    if (in_flight(v)) {
      a.requests = hold_while_transitioning(variants, v);
      return a;
    }
  }

  if (a.scale_up_needed) {
    const auto* pick = cheapest(variants, [](const VariantState& v) {
      return v.pending_replicas == 0 && v.current_replicas < v.spec.max_replicas;
    });
    if (pick == nullptr) {
      const bool any_pending = std::any_of(variants.begin(), variants.end(),
                                           [](const VariantState& v) { return v.pending_replicas > 0; });
      a.requests = hold_all(variants,
                            any_pending ? ReasonCode::kPendingGuard : ReasonCode::kMaxReplicas,
                            "scale-up needed but every variant has pending replicas or is at its "
                            "maximum: " + scale_up_cause(s, config));
      return a;
    }
    a.requests = hold_all(variants, ReasonCode::kHold, "");
    apply_change(a.requests, variants, *pick, pick->current_replicas + 1, ReasonCode::kScaleUp,
                 scale_up_cause(s, config) + "; cheapest variant without pending replicas");
    return a;
  }

  if (a.scale_down_safe) {
    const auto* pick = most_expensive(variants, [](const VariantState& v) {
      return v.current_replicas > std::max(1, v.spec.min_replicas);
    });
    if (pick != nullptr) {
      a.requests = hold_all(variants, ReasonCode::kHold, "");
      apply_change(a.requests, variants, *pick, pick->current_replicas - 1, ReasonCode::kScaleDown,
                   "spare KV " + fmt_num(s.avg_spare_kv) + " and queue " +
                       fmt_num(s.avg_spare_queue) + " survive losing 1 of " +
                       std::to_string(s.replicas - s.saturated) +
                       " non-saturated replicas; most expensive variant");
      return a;
    }
  }

  const std::string text = "spare KV " + fmt_num(s.avg_spare_kv) + " and queue " +
                           fmt_num(s.avg_spare_queue) + " at or above triggers " +
                           fmt_num(config.kv_spare_trigger) + " / " +
                           fmt_num(config.queue_spare_trigger) + "; " +
                           (a.scale_down_safe ? "no variant above its floor"
                                              : scale_down_blocker(s));
  a.requests.clear();
  for (const auto& v : variants) {
    a.requests.push_back(hold(v.spec.name, v.current_replicas, ReasonCode::kHold,
                              "hold at " + std::to_string(v.current_replicas) + ": " + text));
  }
  return a;
}

}  // namespace capstan
