#include "domain/policies/role_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "domain/model/backlog_projection.hpp"
#include "domain/model/capacity_signal.hpp"
#include "domain/stages/cost_aware_optimizer.hpp"
#include "domain/core/format.hpp"
#include "domain/model/iteration_report.hpp"
#include "domain/codec/json.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/model/observed_queueing.hpp"
#include "domain/model/sla_sizing.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {
namespace {

constexpr double kDefaultBatchedTokens = 2048;  // vLLM's default chunk when the spec does not say

RegressionState fold_forward_passes(RegressionState r, const VariantTickInput& v) {
  static const RegressionConfig kConfig{};
  if (r.role != v.state.spec.role) r = RegressionState{v.state.spec.role, {}, {}, {}, {}};
  for (const ForwardPassSample& f : v.forward_passes) {
    if (regression_fields_valid(f)) r = observe(std::move(r), iteration_report(f), kConfig);
  }
  return r;
}

// One role of the model: the CapacitySignal for the optimizer and the sentence behind it.
struct RolePlan {
  std::vector<std::size_t> variants;  // indices into the model's variants
  CapacitySignal signal;
  std::vector<Figure> why;  // what the role was sized from (reason kind "role.sized")
  bool any_capacity = false;
  int fit_samples = 0;  // the most iterations any of its variants' regressions holds
};

RolePlan plan_role(const ModelTickInput& m, Role role, const SplitTick& tick, const PolicyConfig& config,
                   const TrafficSample& shape, SplitSizingState& state) {
  static const RegressionConfig kConfig{};
  RolePlan plan;
  plan.signal.role = role;
  plan.signal.unit = "req/s";
  plan.signal.release_least_efficient_first = true;
  const double max_age_s = max_sample_age_s(tick.interval_s);
  const RoleBacklog backlog = role_backlog(m, role, max_age_s);
  BacklogOutlook outlook{backlog.total(), tick.observed_rps, 0, {}, config.client_timeout_s};
  double supply = 0, ready_supply = 0;
  std::vector<Figure> per_replica;
  for (std::size_t i = 0; i < m.variants.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    if (v.spec.role != role) continue;
    plan.variants.push_back(i);
    const std::string& key = v.spec.name;
    const RegressionState& r = state.regressions[key];
    plan.fit_samples = std::max(plan.fit_samples, static_cast<int>(r.samples.size()));
    double cap = 0;
    if (auto f = fit(r, kConfig); f && shape.avg_input_tokens > 0) {
      const double rps = kRoleUtilization * role_engine_rps(*f, v.spec, shape, config.slo);
      if (rps > 0) remember_capacity(state.recent_capacity_rps[key], rps);
    }
    if (auto it = state.recent_capacity_rps.find(key); it != state.recent_capacity_rps.end() && !it->second.empty())
      cap = median_capacity(it->second);
    plan.any_capacity = plan.any_capacity || cap > 0;
    supply += cap * v.current_replicas;  // starting replicas are coming capacity
    ready_supply += cap * ready_replicas(v);
    outlook.ready_rate_rps += cap * ready_replicas(v);
    if (i < tick.starting_ready_in_s.size())
      for (double ready_in_s : tick.starting_ready_in_s[i]) outlook.starting.push_back({ready_in_s, cap});
    plan.signal.variants.push_back({v.spec.name, cap, v.spec.cost_per_replica, v.current_replicas,
                                    v.pending_replicas, v.spec.min_replicas, v.spec.max_replicas,
                                    v.spec.gpus_per_replica});
    if (cap > 0) per_replica.emplace_back("capacity_rps:" + v.spec.name, cap);
  }

  int ready = 0;
  for (std::size_t i : plan.variants) ready += ready_replicas(m.variants[i].state);
  // As for a whole model (backlog_projection.hpp).
  const BacklogDemand projected = backlog_demand(outlook, ready, tick.forecast_rps, tick.horizon_s, tick.interval_s);
  const double backlog_ahead = projected.backlog_ahead;
  const double demand = projected.demand_rps;
  const double keep_s = config.scale_down_cooldown_s;
  const double peak = peak_demand(state.recent_demand[to_string(role)], tick.now_s,
                                  tick.observed_rps, demand, tick.usable, keep_s);

  plan.signal.demand = demand;
  plan.signal.supply = supply;
  plan.signal.required = std::max(0.0, demand - supply);
  // As for a whole model: nothing of a role is released while requests wait for it.
  plan.signal.spare = projected.queued ? 0.0 : std::max(0.0, supply - peak * (1 + kSpareMargin));

  const double wait_ms = observed_wait_ms(backlog.waiting, backlog.router_queue, ready_supply);
  plan.why = {{"role", to_string(role)},
              {"demand_rps", demand},
              {"forecast_rps", tick.forecast_rps},
              {"horizon_s", tick.horizon_s},
              {"observed_rps", tick.observed_rps},
              {"backlog", backlog.total()},
              {"router_queue", backlog.router_queue},
              {"backlog_ahead", backlog_ahead},
              {"peak_rps", peak},
              {"keep_s", keep_s},
              {"supply_rps", supply},
              {"utilization", kRoleUtilization},
              {"avg_input_tokens", shape.avg_input_tokens},
              {"avg_output_tokens", shape.avg_output_tokens},
              {"observed_wait_ms", wait_ms},
              {"queued", projected.queued}};
  plan.why.insert(plan.why.end(), per_replica.begin(), per_replica.end());
  return plan;
}

}  // namespace

bool is_split(const ModelTickInput& m) {
  return std::any_of(m.variants.begin(), m.variants.end(),
                     [](const VariantTickInput& v) { return v.state.spec.role != Role::kBoth; });
}

double role_engine_rps(const WallTimeFit& fit, const VariantSpec& spec, const TrafficSample& shape,
                       const SloTargets& slo) {
  const double isl = shape.avg_input_tokens, osl = shape.avg_output_tokens;
  if (!(isl > 0)) return 0;
  if (spec.role == Role::kDecode) {
    if (!(osl > 0)) return 0;
    const double target_ms = slo.itl_bound_ms();
    return decode_engine_rate(fit, target_ms, decode_context_tokens(isl, osl), osl, spec.max_batch_size).rps;
  }
  const double most = spec.max_num_batched_tokens > 0 ? spec.max_num_batched_tokens : kDefaultBatchedTokens;
  double chunk = most;
  if (slo.ttft_ms > 0 && fit.wall_time_ms(most, 0) > slo.ttft_ms / 2) {
    // The fit is linear with a non-negative slope: solve wall(chunk) = TTFT / 2.
    const double slope = fit.prefill_ms_per_token;
    chunk = slope > 0 ? (slo.ttft_ms / 2 - fit.intercept_ms) / slope : most;
    chunk = std::clamp(chunk, std::min(isl, most), most);  // at least one prompt (or chunk) an iteration
  }
  return chunk / isl / fit.wall_time_ms(chunk, 0) * 1000.0;
}

std::optional<TrafficSample> split_request_shape(const ModelTickInput& m, double max_age_s) {
  double rate = 0, input = 0, output = 0;
  for (const VariantTickInput& v : m.variants) {
    if (v.state.spec.role != Role::kDecode || unusable_metrics(v.state, max_age_s)) continue;
    for (const PodMetrics* p : ready_pods(v.state)) {
      if (!(p->arrival_rate_rps > 0) || !(p->avg_input_tokens > 0) || !(p->avg_output_tokens > 0)) continue;
      rate += p->arrival_rate_rps;
      input += p->arrival_rate_rps * p->avg_input_tokens;
      output += p->arrival_rate_rps * p->avg_output_tokens;
    }
  }
  if (!(rate > 0)) return std::nullopt;
  return TrafficSample{m.arrival_rate_rps, input / rate, output / rate};
}

RoleBacklog role_backlog(const ModelTickInput& m, Role role, double max_age_s) {
  RoleBacklog b;
  b.router_queue = std::max(0.0, role == Role::kPrefill ? m.upstream_queue : m.decode_queue);
  if (!std::isfinite(b.router_queue)) b.router_queue = 0;
  for (const VariantTickInput& v : m.variants) {
    if (v.state.spec.role != role || unusable_metrics(v.state, max_age_s)) continue;
    for (const PodMetrics& p : v.state.pods)
      if (std::isfinite(p.queue_length)) b.waiting += std::max(0.0, p.queue_length);
  }
  return b;
}

std::vector<ScalingRequest> plan_split_model(const ModelTickInput& m, const SplitTick& tick,
                                             const PolicyConfig& config, SplitSizingState& state) {
  for (const VariantTickInput& v : m.variants) {
    RegressionState& r = state.regressions[v.state.spec.name];
    r = fold_forward_passes(std::move(r), v);
  }
  if (auto shape = split_request_shape(m, max_sample_age_s(tick.interval_s))) state.last_shape = *shape;
  const TrafficSample shape = state.last_shape.value_or(TrafficSample{});

  std::vector<ScalingRequest> out(m.variants.size());
  for (Role role : {Role::kPrefill, Role::kDecode}) {
    const RolePlan plan = plan_role(m, role, tick, config, shape, state);
    if (plan.variants.empty()) continue;
    if (!plan.any_capacity) {
      for (std::size_t i : plan.variants) {
        const VariantState& v = m.variants[i].state;
        std::vector<Figure> figures{{"current", v.current_replicas}, {"fit_samples", plan.fit_samples}};
        figures.insert(figures.end(), plan.why.begin(), plan.why.end());
        out[i] = hold(v.spec.name, v.current_replicas,
                      make_reason(ReasonCode::kNoCapacityData, "role.no_capacity", std::move(figures)));
      }
      continue;
    }
    std::vector<ScalingRequest> requests = optimize_cost_aware(plan.signal);
    for (std::size_t k = 0; k < plan.variants.size(); ++k) {
      Reason& r = requests[k].reason;
      r = make_reason(r.code, "role.sized", plan.why, {std::move(r)});
      out[plan.variants[k]] = std::move(requests[k]);
    }
  }
  // A variant of role both beside a split (which the simulator's loader rejects) is
  // left where it is.
  for (std::size_t i = 0; i < m.variants.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    if (v.spec.role == Role::kBoth)
      out[i] = hold(v.spec.name, v.current_replicas,
                    make_reason(ReasonCode::kHold, "role.both_beside_split", {{"current", v.current_replicas}}));
  }
  return out;
}

void to_json(nlohmann::json& j, const SplitSizingState& s) {
  const auto& t = s.last_shape;
  j = {{"regressions", s.regressions},
       {"recent_capacity_rps", s.recent_capacity_rps},
       {"recent_demand", s.recent_demand},
       {"last_shape", t ? nlohmann::json::array({t->rate_rps, t->avg_input_tokens, t->avg_output_tokens})
                        : nlohmann::json()}};
}

void from_json(const nlohmann::json& j, SplitSizingState& s) {
  s.regressions = j.at("regressions").get<std::map<std::string, RegressionState>>();
  s.recent_capacity_rps = j.at("recent_capacity_rps").get<std::map<std::string, History<double>>>();
  s.recent_demand = j.at("recent_demand").get<std::map<std::string, DemandHistory>>();
  const auto& v = j.at("last_shape");
  s.last_shape.reset();
  if (!v.is_null()) s.last_shape = TrafficSample{v.at(0).get<double>(), v.at(1).get<double>(), v.at(2).get<double>()};
}

}  // namespace capstan
