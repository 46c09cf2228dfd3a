#include "domain/hybrid_policy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "domain/capacity_signal.hpp"
#include "domain/cost_aware_optimizer.hpp"
#include "domain/format.hpp"
#include "domain/json.hpp"
#include "domain/metric_guard.hpp"
#include "domain/observed_queueing.hpp"
#include "domain/queueing_analyzer.hpp"
#include "domain/tail_capacity.hpp"

namespace capstan {
namespace {

constexpr double kSpareMargin = 0.15;     // keep 15% above demand before releasing a replica
constexpr double kDrainTicks = 2;         // a backlog should be gone within two ticks
const ColdStartConfig kColdStart{};

const std::vector<PredictorKind> kPredictors{PredictorKind::kConstant, PredictorKind::kHolt,
                                             PredictorKind::kKalman};

struct ReplicaSizing {
  double capacity_rps = 0;    // per replica
  double predicted_ttft_ms = 0;
  bool tail_bound = false;    // the tail, not the mean, set the capacity
};

std::optional<ReplicaSizing> size_variant(const ServiceParams& params, const VariantSpec& spec,
                                   const TrafficSample& traffic, const SloTargets& slo, double p) {
  auto qa = QueueAnalyzer::create(params, {spec.max_batch_size, spec.max_queue_size},
                                  {traffic.avg_input_tokens, std::max(1.0, traffic.avg_output_tokens)});
  if (!qa) return std::nullopt;
  auto mean = qa->size(slo);
  if (!mean) return std::nullopt;
  ReplicaSizing s{mean->at_lambda_star.throughput_rps, mean->at_lambda_star.ttft_ms, false};
  if (slo.ttft_ms > 0) {
    auto tail = tail_capacity_rps(*qa, slo.ttft_ms, p);
    if (!tail) return std::nullopt;
    if (*tail < s.capacity_rps) {
      s.capacity_rps = *tail;
      s.tail_bound = true;
      if (auto m = qa->analyze(*tail)) s.predicted_ttft_ms = m->ttft_ms;
    }
  }
  if (!(s.capacity_rps > 0)) return std::nullopt;
  return s;
}

}  // namespace

std::vector<ScalingRequest> HybridPolicy::plan_model(const ModelTickInput& m, double now_s, double interval_s) {
  const std::string mkey = model_id_key(m.model);
  std::vector<VariantState> states;
  std::vector<VariantInput> inputs;
  double waiting = 0, pod_rate = 0;
  bool any_usable = false;
  for (const VariantTickInput& v : m.variants) {
    states.push_back(v.state);
    const std::string vkey = variant_id_key(m.model, v.state.spec.name);
    ColdStartState& cs = cold_starts_[vkey];
    cs.prior_s = v.configured_cold_start_s;
    for (double sample : v.new_cold_starts_s) cs = observe_cold_start(cs, sample, kColdStart);
    VariantInput in{v.state.spec, v.state.pods, v.state.current_replicas, v.state.pending_replicas, std::nullopt};
    if (auto it = tuners_.find(vkey); it != tuners_.end()) in.tuner = it->second;
    inputs.push_back(std::move(in));
    if (!unusable_metrics(v.state)) any_usable = true;
    for (const PodMetrics& p : v.state.pods) {
      if (std::isfinite(p.queue_length)) waiting += std::max(0.0, p.queue_length);
      if (std::isfinite(p.arrival_rate_rps)) pod_rate += std::max(0.0, p.arrival_rate_rps);
    }
  }

  // Learn (alpha, beta, gamma) per variant; the analysis itself is only for its tuner.
  QueueingAnalyzerConfig ac;
  ac.slo = {config_.slo_multiplier, config_.slo.ttft_ms, config_.slo.itl_ms};
  auto analysis = analyze_model(m.model, inputs, ac);
  if (analysis) {
    for (const VariantAnalysis& va : analysis->variants) {
      if (va.tuner) tuners_[variant_id_key(m.model, va.capacity.variant)] = *va.tuner;
    }
  }

  // Demand: the router's view of arrivals, forecast at the cold-start horizon.
  const double observed_rps = m.arrival_rate_rps > 0 ? m.arrival_rate_rps : pod_rate;
  TrafficSample now{observed_rps, 0, 0};
  double rate_weight = 0;
  if (analysis) {
    for (const VariantAnalysis& va : analysis->variants) {
      const double w = va.workload.total_arrival_rps;
      now.avg_input_tokens += w * va.workload.avg_input_tokens;
      now.avg_output_tokens += w * va.workload.avg_output_tokens;
      rate_weight += w;
    }
  }
  auto& forecaster = forecasts_.try_emplace(mkey, make_traffic_forecast(kPredictors).value()).first->second;
  if (rate_weight > 0) {
    now.avg_input_tokens /= rate_weight;
    now.avg_output_tokens /= rate_weight;
  }
  const int ready_total = std::accumulate(states.begin(), states.end(), 0,
                                          [](int s, const VariantState& v) { return s + ready_replicas(v); });
  // Learn from what was observed; a gap in the pods' metrics is no evidence of zero load.
  if (std::isfinite(observed_rps) && (any_usable || ready_total == 0)) {
    TrafficSample sample = now;
    const TrafficSample last = forecast(forecaster, 0);
    if (rate_weight == 0) {  // no token lengths seen this tick: keep the forecast's
      sample.avg_input_tokens = last.avg_input_tokens;
      sample.avg_output_tokens = last.avg_output_tokens;
    }
    forecaster = observe(forecaster, sample);
  }

  double horizon_s = interval_s;
  for (const VariantTickInput& v : m.variants) {
    horizon_s = std::max(horizon_s, cold_start_estimate_s(cold_starts_[variant_id_key(m.model, v.state.spec.name)],
                                                          kColdStart) + interval_s);
  }
  const TrafficSample ahead = forecast(forecaster, horizon_s / interval_s);
  const double backlog = waiting + std::max(0.0, m.upstream_queue);
  const double reactive_rps = observed_rps + backlog / (kDrainTicks * interval_s);
  const double demand = std::max(ahead.rate_rps, reactive_rps);
  TrafficSample shape = ahead;
  if (!(shape.avg_input_tokens > 0)) shape = now;

  // Capacity per replica of each variant, from what it learned.
  CapacitySignal signal;
  signal.unit = "req/s";
  signal.demand = demand;
  std::vector<std::optional<ReplicaSizing>> sizes;
  double supply = 0, ready_supply = 0;
  bool any_capacity = false;
  for (const VariantTickInput& v : m.variants) {
    std::optional<ReplicaSizing> s;
    auto it = tuners_.find(variant_id_key(m.model, v.state.spec.name));
    if (it != tuners_.end() && shape.avg_input_tokens > 0) {
      s = size_variant(it->second.params, v.state.spec, shape, config_.slo, config_.tail_probability);
    }
    const double cap = s ? s->capacity_rps : 0;
    any_capacity = any_capacity || cap > 0;
    supply += cap * v.state.current_replicas;  // starting replicas are coming capacity
    ready_supply += cap * ready_replicas(v.state);
    signal.variants.push_back({v.state.spec.name, cap, v.state.spec.cost_per_replica, v.state.current_replicas,
                               v.state.pending_replicas, v.state.spec.min_replicas, v.state.spec.max_replicas,
                               v.state.spec.gpus_per_replica});
    sizes.push_back(s);
  }
  if (!any_capacity) {
    // Nothing learned yet: react to saturation, which needs no parameters.
    auto sat = analyze_saturation(states, saturation_);
    if (sat) return sat->requests;
    std::vector<ScalingRequest> holds;
    for (const VariantState& v : states) {
      holds.push_back(hold(v.spec.name, v.current_replicas, ReasonCode::kNoCapacityData,
                           "hold at " + std::to_string(v.current_replicas) + ": no learned capacity yet"));
    }
    return holds;
  }
  signal.supply = supply;
  signal.required = std::max(0.0, demand - supply);
  signal.spare = std::max(0.0, supply - demand * (1 + kSpareMargin));
  std::vector<ScalingRequest> requests = optimize_cost_aware(signal);

  // The decision's latency estimate includes the queueing already observed.
  const double wait_ms = observed_wait_ms(waiting, m.upstream_queue, ready_supply);
  const std::string why = "demand " + fmt_num(demand) + " req/s (forecast " + fmt_num(ahead.rate_rps) +
                          " req/s at t+" + fmt_num(std::round(horizon_s)) + " s, observed " + fmt_num(observed_rps) +
                          " req/s + backlog " + fmt_num(backlog) + "), supply " + fmt_num(supply) + " req/s";
  for (size_t i = 0; i < requests.size(); ++i) {
    ScalingRequest& r = requests[i];
    r.reason.text += "; " + why;
    if (sizes[i]) {
      r.reason.text += "; lambda* " + fmt_num(sizes[i]->capacity_rps) + " req/s per replica" +
                       (sizes[i]->tail_bound ? " (tail-bound: P(TTFT > " + fmt_num(config_.slo.ttft_ms) +
                                                   " ms) <= " + fmt_num(config_.tail_probability) + ")"
                                             : "") +
                       ", est. TTFT " + fmt_num(sizes[i]->predicted_ttft_ms + (std::isfinite(wait_ms) ? wait_ms : 0)) +
                       " ms incl. " + (std::isfinite(wait_ms) ? fmt_num(wait_ms) + " ms" : "unbounded") +
                       " observed queueing";
    }
  }
  (void)now_s;
  return requests;
}

std::vector<Decision> HybridPolicy::tick(const TickInput& input) {
  std::vector<ModelRequests> wishes;
  for (const ModelTickInput& m : input.models) {
    wishes.push_back({&m, plan_model(m, input.now_s, input.interval_s)});
  }
  return finish_tick(wishes, config_, input.now_s, input.interval_s, finisher_);
}

nlohmann::json HybridPolicy::save_state() const {
  return {{"tuners", tuners_}, {"cold_starts", cold_starts_}, {"forecasts", forecasts_}, {"finisher", finisher_}};
}

Result<bool> HybridPolicy::restore_state(const nlohmann::json& state) {
  try {
    auto tuners = state.at("tuners").get<std::map<std::string, TunerState>>();
    auto cold = state.at("cold_starts").get<std::map<std::string, ColdStartState>>();
    auto forecasts = state.at("forecasts").get<std::map<std::string, TrafficForecastState>>();
    auto finisher = state.at("finisher").get<FinisherState>();
    tuners_ = std::move(tuners);
    cold_starts_ = std::move(cold);
    forecasts_ = std::move(forecasts);
    finisher_ = std::move(finisher);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("hybrid policy state: ") + e.what());
  }
  return true;
}

std::unique_ptr<Policy> make_hybrid_policy(const PolicyConfig& config) {
  return std::make_unique<HybridPolicy>(config);
}

}  // namespace capstan
