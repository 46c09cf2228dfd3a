#include "domain/policies/load_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "domain/core/format.hpp"
#include "domain/model/iteration_report.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/policies/replica_bounds.hpp"

namespace capstan {
namespace {

// The regression's fields and the queue this policy reads from the latest pass.
bool finite_sample(const ForwardPassSample& f) {
  if (!regression_fields_valid(f)) return false;
  for (double v : {f.queued_requests, f.queued_prefill_tokens, f.queued_decode_kv_tokens}) {
    if (!std::isfinite(v) || v < 0) return false;
  }
  return true;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
};

// One latency signal across engines against its target.
struct Signal {
  const char* name = "";  // "ttft" or "itl": the prefix of its figures
  double target_ms = 0;   // 0: no constraint
  Range range;
  bool all_above() const { return target_ms > 0 && range.lo > target_ms; }
  void add_figures(std::vector<Figure>& out) const {
    const std::string n = name;
    out.insert(out.end(), {{n + "_lo_ms", range.lo}, {n + "_hi_ms", range.hi}, {n + "_target_ms", target_ms}});
  }
};

std::vector<EngineEstimate> estimate_engines(const std::map<std::string, const ForwardPassSample*>& latest,
                                             const RegressionState& r, const WallTimeFit& fit,
                                             const LoadConfig& config, int ready) {
  // What one engine carries when the load of N spreads over N - 1 (Dynamo truncates).
  const double grow = ready >= 2 ? static_cast<double>(ready) / (ready - 1) : 1.0;
  const auto consolidated = [grow](double x) { return std::floor(x * grow); };
  const double isl = average_prompt_tokens(r);
  const double decode_len = average_decode_length(r);
  std::vector<EngineEstimate> out;
  for (const auto& [pod, f] : latest) {
    const double queued_prefill =
        f->queued_prefill_tokens > 0 ? f->queued_prefill_tokens : f->queued_requests * isl;
    EngineEstimate e{pod, 0, 0};
    if (r.role == Role::kPrefill) {
      e.ttft_ms = estimate_ttft_ms(fit, queued_prefill, isl, config.max_batched_tokens);
      e.ttft_own_ms = estimate_ttft_ms(fit, 0, isl, config.max_batched_tokens);
      e.ttft_post_ms = estimate_ttft_ms(fit, consolidated(queued_prefill), isl, config.max_batched_tokens);
    } else if (r.role == Role::kDecode) {
      const double queued_kv = f->queued_decode_kv_tokens > 0 ? f->queued_decode_kv_tokens
                                                              : f->queued_requests * decode_len;
      e.itl_ms = estimate_itl_ms(fit, f->decode_kv_tokens, queued_kv, decode_len);
      e.itl_post_ms = estimate_itl_ms(fit, consolidated(f->decode_kv_tokens + queued_kv), 0, decode_len);
    } else {
      e.ttft_ms = estimate_ttft_ms(fit, queued_prefill, isl, config.max_batched_tokens, 0,
                                   f->decode_kv_tokens);
      e.itl_ms = estimate_itl_ms(fit, f->decode_kv_tokens, f->queued_decode_kv_tokens, decode_len,
                                 average_prefill_per_iteration(r));
      // Aggregated: prefill meets the decode KV grown too; decode carries the queued prefill.
      const double kv_after = f->decode_kv_tokens * grow;
      e.ttft_own_ms = estimate_ttft_ms(fit, 0, isl, config.max_batched_tokens, 0, kv_after);
      e.ttft_post_ms = estimate_ttft_ms(fit, consolidated(queued_prefill), isl, config.max_batched_tokens, 0, kv_after);
      e.itl_post_ms = estimate_itl_ms(fit, consolidated(f->decode_kv_tokens + f->queued_decode_kv_tokens + queued_prefill),
                                      0, decode_len, average_prefill_per_iteration(r));
    }
    out.push_back(std::move(e));
  }
  return out;
}

// +1, -1 or 0 by the all-engines rules, with the figures of the signals it read.
std::pair<int, Reason> vote(Role role, const std::vector<EngineEstimate>& engines, int ready,
                            const LoadConfig& config) {
  Signal ttft{"ttft", config.slo.ttft_ms, {}}, itl{"itl", config.slo.itl_ms, {}};
  for (const EngineEstimate& e : engines) {
    ttft.range.add(e.ttft_ms);
    itl.range.add(e.itl_ms);
  }
  std::vector<const Signal*> used;
  if (role != Role::kDecode) used.push_back(&ttft);
  if (role != Role::kPrefill) used.push_back(&itl);
  const double s = config.scale_down_sensitivity;
  std::vector<Figure> figures{{"engines", engines.size()}, {"sensitivity", s}};
  for (const Signal* sig : used) {
    if (sig->all_above()) {
      sig->add_figures(figures);
      figures.emplace_back("above", sig->name);
      return {+1, make_reason(ReasonCode::kScaleUp, "load.vote.up", std::move(figures))};
    }
  }
  for (const Signal* sig : used) sig->add_figures(figures);
  if (ready < 2) return {0, make_reason(ReasonCode::kHold, "load.vote.single_engine", std::move(figures))};
  // Scale down only if one engine fewer still meets the SLA (the consolidation check,
  // Dynamo PR #9294, against 2 <-> 1 flapping): prefill's added queueing must stay within
  // (TTFT target - own TTFT) x s, decode's next ITL below ITL target x s, on every engine.
  figures.emplace_back("remaining", ready - 1);
  bool refused = false;
  if (role != Role::kDecode && config.slo.ttft_ms > 0) {
    double added = 0, budget = std::numeric_limits<double>::infinity();
    for (const EngineEstimate& e : engines) {
      const double b = (config.slo.ttft_ms - e.ttft_own_ms) * s;
      budget = std::min(budget, b);
      added = std::max(added, e.ttft_post_ms - e.ttft_own_ms);
      refused = refused || b <= 0 || e.ttft_post_ms - e.ttft_own_ms >= b;
    }
    figures.insert(figures.end(), {{"ttft_added_ms", added}, {"ttft_budget_ms", budget}});
  }
  if (role != Role::kPrefill && config.slo.itl_ms > 0) {
    double worst = 0;
    for (const EngineEstimate& e : engines) {
      worst = std::max(worst, e.itl_post_ms);
      refused = refused || e.itl_post_ms >= config.slo.itl_ms * s;
    }
    figures.emplace_back("itl_post_ms", worst);
  }
  if (refused) return {0, make_reason(ReasonCode::kHold, "load.vote.refused", std::move(figures))};
  return {-1, make_reason(ReasonCode::kScaleDown, "load.vote.consolidate", std::move(figures))};
}

}  // namespace

std::optional<Error> validate(const LoadConfig& config) {
  if (!(config.scale_down_sensitivity > 0) || config.scale_down_sensitivity > 1) {
    return invalid_argument("scale_down_sensitivity must be in (0, 1], got " +
                            fmt_num(config.scale_down_sensitivity));
  }
  if (!(config.adjustment_interval_s >= 0)) {
    return invalid_argument("adjustment_interval_s must be >= 0, got " + fmt_num(config.adjustment_interval_s));
  }
  if (!(config.max_batched_tokens > 0)) {
    return invalid_argument("max_batched_tokens must be > 0, got " + fmt_num(config.max_batched_tokens));
  }
  if (auto err = validate(config.slo)) return err;
  return validate(config.regression);
}

LoadStep load_step(LoadVariantState state, const VariantTickInput& input, const LoadConfig& config,
                   double now_s, int floor_replicas) {
  const VariantState& v = input.state;
  const int current = v.current_replicas;
  LoadStep out;
  if (state.regression.role != v.spec.role) state.regression = RegressionState{v.spec.role, {}, {}, {}, {}};

  std::map<std::string, const ForwardPassSample*> latest;
  for (const ForwardPassSample& f : input.forward_passes) {
    if (!finite_sample(f)) continue;
    state.regression = observe(std::move(state.regression), iteration_report(f), config.regression);
    latest[f.pod] = &f;
  }
  const int ready = ready_replicas(v);
  const bool named = !(latest.size() == 1 && latest.begin()->first.empty());
  out.fit = fit(state.regression, config.regression);

  ScalingRequest req;
  if (latest.empty()) {
    out.unusable = make_reason(ReasonCode::kMetricsMissing,
                               input.forward_passes.empty() ? "load.no_passes" : "load.invalid_passes", {});
  } else if (named && static_cast<int>(latest.size()) < ready) {
    out.unusable = make_reason(ReasonCode::kMetricsMissing, "load.some_passes",
                               {{"reported", latest.size()}, {"ready", ready}});
  }
  if (out.unusable) {
    req = hold_last_good(v, std::nullopt, *out.unusable);
  } else if (v.pending_replicas > 0 || in_flight(v)) {
    req = hold(v.spec.name, current,
               make_reason(ReasonCode::kPendingGuard, "load.in_flight",
                           {{"current", current}, {"target", current}, {"starting", v.pending_replicas}}));
  } else if (!out.fit) {
    req = hold(v.spec.name, current,
               make_reason(ReasonCode::kNoCapacityData, "load.fit_not_ready",
                           {{"current", current},
                            {"target", current},
                            {"iterations", state.regression.samples.size()},
                            {"needed", config.regression.min_observations}}));
  } else if (state.last_change_s && now_s - *state.last_change_s < config.adjustment_interval_s) {
    req = hold(v.spec.name, current,
               make_reason(ReasonCode::kCooldown, "load.cooldown",
                           {{"current", current},
                            {"target", current},
                            {"since_step_s", now_s - *state.last_change_s},
                            {"interval_s", config.adjustment_interval_s}}));
  } else {
    out.estimates = estimate_engines(latest, state.regression, *out.fit, config, ready);
    auto [step, why] = vote(v.spec.role, out.estimates, ready, config);
    const int target = current + step;
    if (step < 0 && target < floor_replicas) {
      req = hold(v.spec.name, current,
                 make_reason(ReasonCode::kHold, "load.floor_refused",
                             {{"current", current}, {"target", current}, {"floor", floor_replicas}}, {std::move(why)}));
    } else {
      req = {v.spec.name, current, target,
             make_reason(direction_code(current, target), "load.step", {{"current", current}, {"target", target}},
                         {std::move(why)})};
    }
  }

  // While scaling is in progress Dynamo only observes: not even the floor moves.
  const bool observe_only = req.reason.code == ReasonCode::kPendingGuard;
  if (req.target_replicas < floor_replicas && !observe_only) {
    const int from = req.target_replicas;
    req.target_replicas = floor_replicas;
    req.reason = make_reason(direction_code(current, floor_replicas), "load.raised_to_floor",
                             {{"current", current}, {"target", floor_replicas}, {"from", from}, {"floor", floor_replicas}},
                             {std::move(req.reason)});
  }
  if (const Bounded b = clamp_to_bounds(req.target_replicas, v.spec);
      b.limited_by && b.target != req.target_replicas) {
    req.reason = make_reason(*b.limited_by, "variant.bound", {{"current", current}, {"target", b.target}},
                             {std::move(req.reason)});
    req.target_replicas = b.target;
  }
  if (req.target_replicas != current) state.last_change_s = now_s;
  out.state = std::move(state);
  out.request = std::move(req);
  return out;
}

LoadConfig load_config_from(const PolicyConfig& config) {
  LoadConfig c;
  c.slo = config.slo;
  return c;
}

namespace {

class Load final : public PerVariantPolicy<LoadVariantState> {
 public:
  explicit Load(std::optional<LoadConfig> config) : config_(std::move(config)) {}
  std::string name() const override { return "load"; }
  bool reads_forward_passes(const ModelTickInput&) const override { return true; }

 private:
  std::pair<LoadVariantState, VariantWish> step(LoadVariantState state, const ModelTickInput&, const VariantTickInput& v,
                                      const PolicyConfig& config, const TickTime& time,
                                      std::vector<TickEvent>&) const override {
    const int floor = std::max(1, v.state.spec.min_replicas);
    LoadStep s = load_step(std::move(state), v, config_ ? *config_ : load_config_from(config), time.now_s, floor);
    return {std::move(s.state), VariantWish{std::move(s.request), std::move(s.unusable)}};
  }

  FinishOptions finish_options() const override { return {.enforcer = false, .guard_pod_metrics = false}; }

  std::optional<LoadConfig> config_;
};

}  // namespace

std::shared_ptr<const TickPolicy> load_policy(std::optional<LoadConfig> config) {
  return std::make_shared<const Load>(std::move(config));
}

void to_json(nlohmann::json& j, const LoadVariantState& s) {
  j = {{"regression", s.regression}};
  j["last_change_s"] = s.last_change_s ? nlohmann::json(*s.last_change_s) : nlohmann::json();
}

void from_json(const nlohmann::json& j, LoadVariantState& s) {
  s.regression = j.at("regression").get<RegressionState>();
  const auto& c = j.at("last_change_s");
  s.last_change_s = c.is_null() ? std::nullopt : std::optional<double>(c.get<double>());
}

}  // namespace capstan
