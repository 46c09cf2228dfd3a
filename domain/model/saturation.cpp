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

// The figures every saturation sentence is rendered from.
std::vector<Figure> spare_figures(const SpareSummary& s, const SaturationConfig& c) {
  return {{"saturated", s.saturated},          {"replicas", s.replicas},
          {"spare_kv", s.avg_spare_kv},        {"spare_queue", s.avg_spare_queue},
          {"kv_trigger", c.kv_spare_trigger},  {"queue_trigger", c.queue_spare_trigger},
          {"min_non_saturated", kMinNonSaturatedForScaleDown}};
}

// Every variant holds for the same reason, told with its own replicas: the reason is
// made per variant, never once for the model (its text would be rendered and dropped).
std::vector<ScalingRequest> hold_all(std::span<const VariantState> variants, ReasonCode code, const std::string& kind,
                                     const std::vector<Figure>& why) {
  std::vector<ScalingRequest> out;
  out.reserve(variants.size());
  for (const auto& v : variants) {
    std::vector<Figure> figures;
    figures.reserve(2 + why.size());
    figures.emplace_back("current", v.current_replicas);
    figures.emplace_back("target", v.current_replicas);
    figures.insert(figures.end(), why.begin(), why.end());
    out.push_back(hold(v.spec.name, v.current_replicas, make_reason(code, kind, std::move(figures))));
  }
  return out;
}

// WVA blocks the whole model while any variant is in flight: capacity measured during a
// transition is incomplete. The in-flight variant keeps the target it was given.
std::vector<ScalingRequest> hold_while_transitioning(std::span<const VariantState> variants,
                                                     const VariantState& moving) {
  std::vector<ScalingRequest> out =
      hold_all(variants, ReasonCode::kTransitioning, "saturation.transitioning",
               {{"moving", moving.spec.name},
                {"moving_desired", *moving.desired_replicas},
                {"moving_current", moving.current_replicas}});
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (in_flight(variants[i])) out[i].target_replicas = *variants[i].desired_replicas;
  }
  return out;
}

// The chosen variant moves to `target`; the others hold, saying which variant moves.
std::vector<ScalingRequest> apply_change(std::span<const VariantState> variants, const VariantState& chosen, int target,
                                         ReasonCode code, const std::string& kind, std::vector<Figure> figures) {
  std::vector<ScalingRequest> out;
  for (const VariantState& v : variants) {
    if (&v != &chosen) {
      out.push_back(hold(v.spec.name, v.current_replicas,
                         make_reason(ReasonCode::kHold, "saturation.other_moves",
                                     {{"current", v.current_replicas}, {"target", v.current_replicas},
                                      {"chosen", chosen.spec.name}})));
      continue;
    }
    std::vector<Figure> f{{"current", v.current_replicas}, {"target", target}};
    f.insert(f.end(), figures.begin(), figures.end());
    out.push_back({v.spec.name, v.current_replicas, target, make_reason(code, kind, std::move(f))});
  }
  return out;
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
    a.requests = hold_all(variants, ReasonCode::kMetricsMissing, "saturation.no_metrics", {});
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
      a.requests = hold_all(variants, any_pending ? ReasonCode::kPendingGuard : ReasonCode::kMaxReplicas,
                            "saturation.up_blocked", spare_figures(s, config));
      return a;
    }
    a.requests = apply_change(variants, *pick, pick->current_replicas + 1, ReasonCode::kScaleUp, "saturation.up",
                              spare_figures(s, config));
    return a;
  }

  if (a.scale_down_safe) {
    const auto* pick = most_expensive(variants, [](const VariantState& v) {
      return v.current_replicas > std::max(1, v.spec.min_replicas);
    });
    if (pick != nullptr) {
      a.requests = apply_change(variants, *pick, pick->current_replicas - 1, ReasonCode::kScaleDown, "saturation.down",
                                spare_figures(s, config));
      return a;
    }
  }

  std::vector<Figure> figures = spare_figures(s, config);
  figures.emplace_back("scale_down_safe", a.scale_down_safe);
  a.requests = hold_all(variants, ReasonCode::kHold, "saturation.hold", figures);
  return a;
}

}  // namespace capstan
