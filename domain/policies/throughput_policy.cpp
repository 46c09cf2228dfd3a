#include "domain/policies/throughput_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "domain/core/format.hpp"
#include "domain/codec/json.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/policies/replica_bounds.hpp"
#include "domain/model/queue_model.hpp"
#include "domain/model/queueing_analyzer.hpp"
#include "domain/model/sla_sizing.hpp"
#include "domain/core/workload.hpp"

namespace capstan {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Observed {
  VariantWorkload workload;
  double running_per_replica = 0;
};

Observed observe_pods(const VariantState& v) {
  std::vector<PodMetrics> copy;
  double running = 0;
  for (const PodMetrics* p : ready_pods(v)) {
    copy.push_back(*p);
    running += p->running;
  }
  return {aggregate(copy), running / static_cast<double>(copy.size())};
}

double fix_correction(double c, bool enabled) { return enabled && std::isfinite(c) && c > 0 ? c : kNaN; }

// 1. profile.
bool size_from_profile(const VariantProfile& prof, const VariantSpec& spec, const Observed& obs,
                       const ThroughputConfig& config, ReplicaFloor& f) {
  const auto& w = obs.workload;
  const TrafficSample& p = f.predicted;
  const int gpus = std::max(1, spec.gpus_per_replica);
  double prefill_rps = 0, decode_rps = 0;
  if (spec.role != Role::kDecode) {
    if (!prof.prefill) return false;
    f.prefill_correction = fix_correction(
        prefill_correction(*prof.prefill, w.avg_ttft_ms, w.avg_input_tokens), config.correction);
    prefill_rps = prefill_replica_rps(*prof.prefill, p.avg_input_tokens, gpus, f.prefill_correction);
  }
  if (spec.role != Role::kPrefill) {
    if (!prof.decode) return false;
    const double ctx = decode_context_tokens(w.avg_input_tokens, w.avg_output_tokens);
    f.decode_correction = fix_correction(
        decode_correction(*prof.decode, w.avg_itl_ms, obs.running_per_replica, ctx), config.correction);
    decode_rps = decode_replica_rps(*prof.decode, config.slo.itl_bound_ms(), p.avg_input_tokens,
                                    p.avg_output_tokens, gpus, f.decode_correction);
  }
  f.source = PerfSource::kProfile;
  f.per_replica_rps = spec.role == Role::kPrefill  ? prefill_rps
                      : spec.role == Role::kDecode ? decode_rps
                                                   : time_shared_rps(prefill_rps, decode_rps);
  return true;
}

// 2. forward-pass regression.
bool size_from_regression(const WallTimeFit& fit, const VariantSpec& spec,
                          const ThroughputConfig& config, ReplicaFloor& f) {
  const TrafficSample& p = f.predicted;
  const double prefill_rps = prefill_engine_rate(fit, p.avg_input_tokens, config.load.max_batched_tokens).rps;
  const double decode_rps =
      decode_engine_rate(fit, config.slo.itl_bound_ms(), decode_context_tokens(p.avg_input_tokens, p.avg_output_tokens),
                         p.avg_output_tokens, spec.max_batch_size)
          .rps;
  f.source = PerfSource::kRegression;
  f.per_replica_rps = spec.role == Role::kPrefill  ? prefill_rps
                      : spec.role == Role::kDecode ? decode_rps
                                                   : time_shared_rps(prefill_rps, decode_rps);
  return true;
}

// 3. learned queue model. Advances the tuner whatever the outcome.
bool size_from_queue_model(ThroughputVariantState& state, const VariantState& v, const Observed& obs,
                           const ThroughputConfig& config, ReplicaFloor& f) {
  QueueingAnalyzerConfig qc;
  qc.slo = {3.0, config.slo};
  qc.tuner = config.tuner;
  VariantInput vin{v.spec, v.pods, v.current_replicas, v.pending_replicas, state.tuner};
  auto analysis = analyze_model({}, {vin}, qc);
  if (analysis.ok()) state.tuner = analysis->variants.front().tuner;
  if (!state.tuner) return false;
  const QueueConfig queue{v.spec.max_batch_size, v.spec.max_queue_size};
  const auto& w = obs.workload;
  // Corrections: observed latency over the model's own at the observed per-replica rate.
  if (config.correction && w.has_traffic()) {
    auto at_obs = QueueAnalyzer::create(state.tuner->params, queue,
                                        {w.avg_input_tokens, std::max(1.0, w.avg_output_tokens)});
    if (at_obs) {
      if (auto m = at_obs->analyze(w.total_arrival_rps / w.busy_pods)) {
        f.prefill_correction = fix_correction(w.avg_ttft_ms / m->ttft_without_decode_ms(), true);
        f.decode_correction = fix_correction(w.avg_itl_ms / m->itl_ms, true);
      }
    }
  }
  auto qa = QueueAnalyzer::create(state.tuner->params, queue,
                                  {f.predicted.avg_input_tokens, std::max(1.0, f.predicted.avg_output_tokens)});
  if (!qa) return false;
  const double c_d = std::isfinite(f.decode_correction) ? f.decode_correction : 1.0;
  const double c_p = std::isfinite(f.prefill_correction) ? std::min(1.0, f.prefill_correction) : 1.0;
  auto sized = qa->size({config.slo.ttft_ms, config.slo.itl_ms / c_d});
  if (!sized) return false;
  f.source = PerfSource::kQueueModel;
  f.per_replica_rps = std::min(sized->lambda_ttft_rps / c_p, sized->lambda_itl_rps);
  return true;
}

// The correction factors behind a queue-model or profile capacity, by the phases the role serves.
void add_corrections(std::vector<Figure>& figures, const ReplicaFloor& f, Role role) {
  if (f.source == PerfSource::kRegression) return;
  if (role != Role::kDecode) figures.emplace_back("ttft_correction", f.prefill_correction);
  if (role != Role::kPrefill) figures.emplace_back("itl_correction", f.decode_correction);
}

ReplicaFloor size_floor(ThroughputVariantState& state, const VariantState& v, const Observed& obs,
                        const ThroughputConfig& config) {
  ReplicaFloor f;
  f.predicted = forecast(*state.forecast, 1);
  const int least = std::max(1, v.spec.min_replicas);
  const auto prof = config.profiles.find(v.spec.name);
  const auto fitted = fit(state.load.regression, config.load.regression);
  const bool sized = (prof != config.profiles.end() && size_from_profile(prof->second, v.spec, obs, config, f)) ||
                     (fitted && size_from_regression(*fitted, v.spec, config, f)) ||
                     size_from_queue_model(state, v, obs, config, f);
  std::vector<Figure> figures{{"rate_rps", f.predicted.rate_rps},
                              {"avg_input_tokens", f.predicted.avg_input_tokens},
                              {"avg_output_tokens", f.predicted.avg_output_tokens}};
  if (!(f.predicted.rate_rps > 0)) {
    f.replicas = least;
    f.why = make_reason(ReasonCode::kHold, "throughput.no_traffic", {{"least", least}});
    return f;
  }
  if (!sized || !(f.per_replica_rps > 0)) {
    f.source = PerfSource::kNone;
    f.replicas = 0;
    f.why = make_reason(ReasonCode::kNoCapacityData, "throughput.no_capacity", std::move(figures));
    return f;
  }
  f.replicas = std::max(least, replicas_for(f.predicted.rate_rps, f.per_replica_rps));
  figures.insert(figures.end(), {{"per_replica_rps", f.per_replica_rps}, {"source", to_string(f.source)}});
  add_corrections(figures, f, v.spec.role);
  figures.emplace_back("replicas", f.replicas);
  f.why = make_reason(ReasonCode::kHold, "throughput.floor", std::move(figures));
  return f;
}

}  // namespace

const char* to_string(PerfSource source) {
  switch (source) {
    case PerfSource::kNone: return "none";
    case PerfSource::kProfile: return "profile";
    case PerfSource::kRegression: return "forward-pass regression";
    case PerfSource::kQueueModel: return "queue model";
  }
  return "none";
}

ThroughputStep throughput_step(ThroughputVariantState state, const VariantTickInput& input,
                               const ThroughputConfig& config, double now_s, double max_age_s) {
  const VariantState& v = input.state;
  const int current = v.current_replicas;
  ThroughputStep out;
  if (!state.forecast) {
    auto made = make_traffic_forecast({config.predictor});
    state.forecast = made.ok() ? made.value() : make_traffic_forecast({PredictorKind::kConstant}).value();
  }
  auto pods = ready_pods(v);
  if (pods.empty() && ready_replicas(v) == 0 && v.pending_replicas > 0) {
    out.request = hold(v.spec.name, current,
                       make_reason(ReasonCode::kPendingGuard, "throughput.all_starting", {{"current", current}, {"target", current}}));
    out.state = std::move(state);
    return out;
  }
  if (auto problem = pods.empty() ? make_reason(ReasonCode::kMetricsMissing, "throughput.no_ready", {})
                                  : unusable_metrics(v, max_age_s)) {
    out.request = hold_last_good(v, std::nullopt, *problem);
    out.unusable = std::move(problem);
    out.state = std::move(state);
    return out;
  }
  const Observed obs = observe_pods(v);
  const auto& w = obs.workload;
  TrafficForecastState& fc = *state.forecast;
  fc.rate_rps = observe(fc.rate_rps, w.total_arrival_rps);
  if (w.has_traffic()) {  // an idle window says nothing about request sizes: carry them
    fc.avg_input_tokens = observe(fc.avg_input_tokens, w.avg_input_tokens);
    fc.avg_output_tokens = observe(fc.avg_output_tokens, w.avg_output_tokens);
  }
  const ReplicaFloor floor = size_floor(state, v, obs, config);

  ScalingRequest req;
  if (floor.source == PerfSource::kNone && floor.replicas == 0) {
    req = hold(v.spec.name, current,
               make_reason(ReasonCode::kNoCapacityData, "throughput.step", {{"current", current}, {"target", current}},
                           {floor.why}));
  } else if (config.load_loop && !input.forward_passes.empty()) {
    LoadConfig lc = config.load;
    lc.slo = config.slo;
    LoadStep step = load_step(std::move(state.load), input, lc, now_s, floor.replicas);
    state.load = std::move(step.state);
    req = std::move(step.request);
    out.unusable = std::move(step.unusable);
    req.reason = make_reason(req.reason.code, "throughput.with_load", {{"floor", floor.replicas}},
                             {std::move(req.reason), floor.why});
  } else {
    const Bounded b = clamp_to_bounds(floor.replicas, v.spec);
    if (b.target != current && (v.pending_replicas > 0 || in_flight(v))) {
      req = hold(v.spec.name, current,
                 make_reason(ReasonCode::kPendingGuard, "throughput.in_flight",
                             {{"current", current},
                              {"target", current},
                              {"direction", b.target > current ? "scale-up" : "scale-down"},
                              {"wanted", b.target},
                              {"starting", v.pending_replicas}},
                             {floor.why}));
    } else {
      const ReasonCode code = b.limited_by && b.target != floor.replicas ? *b.limited_by
                                                                         : direction_code(current, b.target);
      req = {v.spec.name, current, b.target,
             make_reason(code, "throughput.step", {{"current", current}, {"target", b.target}}, {floor.why})};
    }
  }
  out.state = std::move(state);
  out.request = std::move(req);
  out.floor = floor;
  return out;
}

ThroughputConfig throughput_config_from(const PolicyConfig& config) {
  ThroughputConfig c;
  c.slo = config.slo;
  c.load = load_config_from(config);
  if (!parse_predictor_kind(config.predictor, c.predictor)) c.predictor = PredictorKind::kConstant;
  return c;
}

namespace {

// The request rate the variant's ready pods reported, non-finite samples left out.
double observed_rps(const VariantState& v) {
  double sum = 0;
  for (const PodMetrics* p : ready_pods(v)) {
    if (std::isfinite(p->arrival_rate_rps)) sum += std::max(0.0, p->arrival_rate_rps);
  }
  return sum;
}

class Throughput final : public PerVariantPolicy<ThroughputVariantState> {
 public:
  explicit Throughput(std::optional<ThroughputConfig> config) : config_(std::move(config)) {}
  std::string name() const override { return "throughput"; }
  bool reads_forward_passes(const ModelTickInput&) const override { return true; }

 private:
  std::pair<ThroughputVariantState, VariantWish> step(ThroughputVariantState state, const ModelTickInput& m,
                                                     const VariantTickInput& v, const PolicyConfig& config,
                                                     const TickTime& time, std::vector<TickEvent>& events) const override {
    ThroughputConfig c = config_ ? *config_ : throughput_config_from(config);
    c.load.slo = c.slo;
    ThroughputStep s = throughput_step(std::move(state), v, c, time.now_s, max_sample_age_s(time.interval_s));
    if (s.floor) {
      const ReplicaFloor& f = *s.floor;
      events.push_back(ForecastMade{m.model, to_string(c.predictor), time.interval_s, f.predicted.rate_rps,
                                    observed_rps(v.state), {}});
      if (f.per_replica_rps > 0) {
        events.push_back(CapacitySized{m.model, v.state.spec.name, c.slo, "explicit", f.per_replica_rps,
                                       f.per_replica_rps, to_string(f.source), f.predicted.rate_rps, f.replicas});
      }
    }
    return {std::move(s.state), VariantWish{std::move(s.request), std::move(s.unusable)}};
  }

  std::optional<ThroughputConfig> config_;
};

}  // namespace

std::shared_ptr<const TickPolicy> throughput_policy(std::optional<ThroughputConfig> config) {
  return std::make_shared<const Throughput>(std::move(config));
}

void to_json(nlohmann::json& j, const ThroughputVariantState& s) {
  j = {{"load", s.load}};
  j["forecast"] = s.forecast ? nlohmann::json(*s.forecast) : nlohmann::json();
  j["tuner"] = s.tuner ? nlohmann::json(*s.tuner) : nlohmann::json();
}

void from_json(const nlohmann::json& j, ThroughputVariantState& s) {
  s.load = j.at("load").get<LoadVariantState>();
  const auto& f = j.at("forecast");
  s.forecast = f.is_null() ? std::nullopt : std::optional<TrafficForecastState>(f.get<TrafficForecastState>());
  const auto& t = j.at("tuner");
  s.tuner = t.is_null() ? std::nullopt : std::optional<TunerState>(t.get<TunerState>());
}

}  // namespace capstan
