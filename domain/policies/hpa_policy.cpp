#include "domain/policies/hpa_policy.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/format.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/policies/replica_bounds.hpp"

namespace capstan {
namespace {

// Far above any fleet: bounds the compounding of a long interval.
constexpr int kMaxReplicaLimit = 1 << 20;

struct Recommendation {
  int replicas = 0;
  std::vector<Figure> figures;  // what it was computed from (reason kind "hpa.sized")
};

// replica_calculator.go, calcPlainMetricReplicas, for an average-value target.
Recommendation recommend(const VariantState& v, double sum, int reported, const HpaConfig& c) {
  const int current = v.current_replicas;
  const double target = c.target_concurrency_per_replica;
  const double metric = sum / reported;
  const double ratio = metric / target;
  std::vector<Figure> figures{{"per_replica", metric}, {"target_per_replica", target}, {"ratio", ratio}};
  const int missing = std::max(0, ready_replicas(v) - reported);
  const int unready = v.pending_replicas;
  if (missing == 0 && unready == 0) {
    const bool within = std::abs(ratio - 1) <= c.tolerance;
    figures.emplace_back("within_tolerance", within);
    return {within ? current : static_cast<int>(std::ceil(ratio * reported)), std::move(figures)};
  }
  // Pods without a usable value: conservative in the direction of the change.
  double padded = sum;
  int counted = reported + missing;
  if (ratio < 1) {
    padded += missing * target;
  } else {
    counted += unready;
  }
  const double new_ratio = padded / (target * counted);
  figures.insert(figures.end(), {{"unreported", missing}, {"starting_counted", ratio < 1 ? 0 : unready}, {"padded_ratio", new_ratio}});
  if (std::abs(new_ratio - 1) <= c.tolerance || (ratio < 1) != (new_ratio < 1)) return {current, std::move(figures)};
  const int desired = static_cast<int>(std::ceil(new_ratio * counted));
  // The recomputed count must not reverse the direction of the raw ratio.
  if ((ratio > 1 && desired < current) || (ratio < 1 && desired > current)) return {current, std::move(figures)};
  return {desired, std::move(figures)};
}

}  // namespace

std::optional<Error> validate(const HpaConfig& c) {
  if (!(c.target_concurrency_per_replica > 0)) {
    return invalid_argument("target_concurrency_per_replica must be > 0, got " +
                            fmt_num(c.target_concurrency_per_replica));
  }
  if (!(c.tolerance >= 0)) return invalid_argument("tolerance must be >= 0, got " + fmt_num(c.tolerance));
  if (!(c.period_s > 0) || !std::isfinite(c.period_s)) {
    return invalid_argument("period_s must be > 0 and finite, got " + fmt_num(c.period_s));
  }
  if (!(c.scale_down_stabilization_s >= 0) || !(c.scale_up_stabilization_s >= 0)) {
    return invalid_argument("stabilization windows must be >= 0 s, got " + fmt_num(c.scale_down_stabilization_s) +
                            " / " + fmt_num(c.scale_up_stabilization_s));
  }
  return std::nullopt;
}

int scale_up_limit(int current, const HpaConfig& c, double interval_s) {
  const int periods = std::isfinite(interval_s) ? std::max(1, static_cast<int>(std::floor(interval_s / c.period_s))) : 1;
  int limit = current;
  for (int k = 0; k < periods && limit < kMaxReplicaLimit; ++k) {
    limit = std::max(limit + c.scale_up_pods_per_period,
                     static_cast<int>(std::ceil(limit * (1 + c.scale_up_percent_per_period / 100))));
  }
  return std::min(limit, kMaxReplicaLimit);
}

HpaStep hpa_step(HpaVariantState state, const VariantState& v, const HpaConfig& c, double now_s,
                 double max_age_s, double interval_s) {
  const int current = v.current_replicas;
  auto pods = ready_pods(v);
  double sum = 0;
  for (const PodMetrics* p : pods) sum += p->running + p->queue_length;
  std::optional<Reason> problem = unusable_metrics(v, max_age_s);
  HpaStep out;
  if (current == 0) {
    // The HPA does not act on a workload scaled to zero.
    out.request = hold(v.spec.name, 0, make_reason(ReasonCode::kHold, "hpa.at_zero", {}));
  } else if (problem || pods.empty()) {
    out.unusable = problem ? std::move(*problem) : make_reason(ReasonCode::kPendingGuard, "hpa.all_starting", {});
    out.request = hold_last_good(v, std::nullopt, *out.unusable);
  } else {
    Recommendation rec = recommend(v, sum, static_cast<int>(std::ranges::distance(pods)), c);
    // Remember the raw recommendation; forget what every window has left behind.
    const double keep_s = std::max(c.scale_down_stabilization_s, c.scale_up_stabilization_s);
    std::erase_if(state.recommendations, [&](const HpaRecommendation& r) { return r.at_s < now_s - keep_s; });
    state.recommendations.push_back({now_s, rec.replicas});
    int up = rec.replicas, down = rec.replicas;
    for (const HpaRecommendation& r : state.recommendations) {
      if (r.at_s >= now_s - c.scale_up_stabilization_s) up = std::min(up, r.replicas);
      if (r.at_s >= now_s - c.scale_down_stabilization_s) down = std::max(down, r.replicas);
    }
    int target = std::clamp(current, up, std::max(up, down));
    std::optional<ReasonCode> code;
    std::vector<Figure>& figures = rec.figures;
    if (rec.replicas < current && target > rec.replicas) {
      code = ReasonCode::kCooldown;
      figures.insert(figures.end(), {{"recommended", rec.replicas},
                                     {"stabilization_s", c.scale_down_stabilization_s},
                                     {"highest_recommendation", down}});
    }
    const int rate_limit = scale_up_limit(current, c, interval_s);
    if (target > rate_limit) {
      figures.emplace_back("rate_limit", rate_limit);
      target = rate_limit;
    }
    VariantSpec bounds = v.spec;
    bounds.min_replicas = std::max(1, bounds.min_replicas);
    const Bounded b = clamp_to_bounds(target, bounds);
    if (b.limited_by && b.target != target) {
      code = *b.limited_by;
      figures.emplace_back("bound", b.target);
    }
    figures.insert(figures.begin(), {{"current", current}, {"target", b.target}});
    out.request = {v.spec.name, current, b.target,
                   make_reason(code.value_or(direction_code(current, b.target)), "hpa.sized", std::move(figures))};
  }
  out.state = std::move(state);
  return out;
}

HpaConfig hpa_config_from(const PolicyConfig& config) {
  HpaConfig c;
  if (config.target_concurrency_per_replica > 0) {
    c.target_concurrency_per_replica = config.target_concurrency_per_replica;
  }
  if (config.scale_down_cooldown_s >= 0) c.scale_down_stabilization_s = config.scale_down_cooldown_s;
  return c;
}

namespace {

class Hpa final : public PerVariantPolicy<HpaVariantState> {
 public:
  explicit Hpa(std::optional<HpaConfig> config) : config_(std::move(config)) {}
  std::string name() const override { return "hpa"; }

 private:
  std::pair<HpaVariantState, VariantWish> step(HpaVariantState state, const ModelTickInput&, const VariantTickInput& v,
                                      const PolicyConfig& config, const TickTime& time,
                                      std::vector<TickEvent>&) const override {
    HpaStep s = hpa_step(std::move(state), v.state, config_ ? *config_ : hpa_config_from(config), time.now_s,
                         max_sample_age_s(time.interval_s), time.interval_s);
    return {std::move(s.state), VariantWish{std::move(s.request), std::move(s.unusable)}};
  }

  std::optional<HpaConfig> config_;
};

}  // namespace

std::shared_ptr<const TickPolicy> hpa_policy(std::optional<HpaConfig> config) {
  return std::make_shared<const Hpa>(std::move(config));
}

void to_json(nlohmann::json& j, const HpaVariantState& s) {
  nlohmann::json recs = nlohmann::json::array();
  for (const HpaRecommendation& r : s.recommendations) recs.push_back({r.at_s, r.replicas});
  j = {{"recommendations", recs}};
}

void from_json(const nlohmann::json& j, HpaVariantState& s) {
  s.recommendations.clear();
  for (const auto& r : j.at("recommendations")) s.recommendations.push_back({r.at(0).get<double>(), r.at(1).get<int>()});
}

}  // namespace capstan
