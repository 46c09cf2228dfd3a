#include "domain/model/model_learning.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "domain/codec/json.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/model/queueing_analyzer.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {

ModelObservation learn_model(const ModelTickInput& m, const PolicyConfig& config, double interval_s,
                             LearnedModels& learned) {
  static const ColdStartConfig kColdStart{};
  ModelObservation out;
  std::vector<VariantInput> inputs;
  double pod_rate = 0;
  for (const VariantTickInput& v : m.variants) {
    out.variants.push_back(v.state);
    out.ready_replicas += ready_replicas(v.state);
    const std::string key = variant_id_key(m.model, v.state.spec.name);
    ColdStartState& cs = learned.cold_starts[key];
    cs.prior_s = v.configured_cold_start_s;
    for (double sample : v.new_cold_starts_s) cs = observe_cold_start(cs, sample, kColdStart);
    out.horizon_s = std::max(out.horizon_s, cold_start_estimate_s(cs, kColdStart));
    // A frozen scrape repeats old figures: the tuner must not learn them again, and
    // they are no evidence of the load now.
    const bool usable = !unusable_metrics(v.state, max_sample_age_s(interval_s));
    VariantInput in{v.state.spec, usable ? v.state.pods : std::vector<PodMetrics>{}, v.state.current_replicas,
                    v.state.pending_replicas, std::nullopt};
    if (auto it = learned.tuners.find(key); it != learned.tuners.end()) in.tuner = it->second;
    inputs.push_back(std::move(in));
    if (usable) out.usable = true;
    if (!usable) continue;
    for (const PodMetrics& p : v.state.pods) {
      if (std::isfinite(p.queue_length)) out.waiting_requests += std::max(0.0, p.queue_length);
      if (std::isfinite(p.arrival_rate_rps)) pod_rate += std::max(0.0, p.arrival_rate_rps);
    }
  }
  out.horizon_s += interval_s;
  out.usable = out.usable || out.ready_replicas == 0;  // the router still sees arrivals
  out.backlog = out.waiting_requests + std::max(0.0, m.upstream_queue);

  QueueingAnalyzerConfig ac;
  ac.slo = {config.slo_multiplier, config.slo.ttft_ms, config.slo.itl_ms};
  out.now.rate_rps = m.arrival_rate_rps > 0 ? m.arrival_rate_rps : pod_rate;
  if (!std::isfinite(out.now.rate_rps)) {
    out.now.rate_rps = 0;
    out.usable = false;
  }
  if (auto analysis = analyze_model(m.model, inputs, ac)) {
    double weight = 0;
    for (const VariantAnalysis& va : analysis->variants) {
      if (va.tuner) learned.tuners[variant_id_key(m.model, va.capacity.variant)] = *va.tuner;
      const double w = va.workload.total_arrival_rps;
      out.now.avg_input_tokens += w * va.workload.avg_input_tokens;
      out.now.avg_output_tokens += w * va.workload.avg_output_tokens;
      weight += w;
    }
    if (weight > 0) {
      out.now.avg_input_tokens /= weight;
      out.now.avg_output_tokens /= weight;
      out.has_token_lengths = true;
    }
  }
  return out;
}

void observe_traffic(TrafficForecastState& forecaster, const ModelObservation& observed) {
  if (!observed.usable) return;  // a gap in the metrics is no evidence of zero load
  TrafficSample sample = observed.now;
  if (!observed.has_token_lengths) {
    const TrafficSample last = forecast(forecaster, 0);
    sample.avg_input_tokens = last.avg_input_tokens;
    sample.avg_output_tokens = last.avg_output_tokens;
  }
  forecaster = observe(forecaster, sample);
}

std::vector<ScalingRequest> saturation_fallback(const std::vector<VariantState>& variants,
                                                const SaturationConfig& config) {
  if (auto sat = analyze_saturation(variants, config)) {
    std::vector<ScalingRequest> requests = sat->requests;
    // Without a learned capacity a scale-down is a guess: hold instead.
    for (ScalingRequest& r : requests) {
      if (r.target_replicas < r.current_replicas) {
        r = hold(r.variant, r.current_replicas, ReasonCode::kNoCapacityData,
                 "hold at " + std::to_string(r.current_replicas) +
                     ": saturation would release a replica, but no capacity is learned yet");
      }
    }
    return requests;
  }
  std::vector<ScalingRequest> holds;
  for (const VariantState& v : variants) {
    holds.push_back(hold(v.spec.name, v.current_replicas, ReasonCode::kNoCapacityData,
                         "hold at " + std::to_string(v.current_replicas) + ": no learned capacity yet"));
  }
  return holds;
}

void to_json(nlohmann::json& j, const LearnedModels& s) {
  j = {{"tuners", s.tuners}, {"cold_starts", s.cold_starts}};
}

void from_json(const nlohmann::json& j, LearnedModels& s) {
  j.at("tuners").get_to(s.tuners);
  j.at("cold_starts").get_to(s.cold_starts);
}

}  // namespace capstan
