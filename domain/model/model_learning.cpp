#include "domain/model/model_learning.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/format.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/model/queueing_analyzer.hpp"

namespace capstan {
namespace {

// A filter whose every observation for this many ticks in a row was rejected has locked
// in a wrong estimate (the NIS gate keeps it, and re-opening the covariance is not
// enough when it is off by more than a factor of e): it starts again from the data.
constexpr int kRebootstrapAfterRejections = 10;

// For this many windows after its warm pods held a backlog, a variant's latencies are
// the drained batch's: the requests that finish then were admitted while the backlog
// kept every pod at its largest batch, and read as the rate arriving they make each
// replica look several times slower than it is (`cold-fleet`: a first estimate one tick
// after the queue emptied read an ITL of 218 ms at 1.3 req/s per H100, about 90 ms three
// ticks later, sized 0.24 req/s per replica and bought the fleet's maximum of 40).
constexpr double kDrainedWindows = 3;

// Requests waiting per warm pod (started at least transient_delay_s ago), those the
// router has stopped sending to included: a pod still draining a backlog is no light
// load.
double waiting_per_warm_pod(std::span<const PodMetrics> pods, double transient_delay_s) {
  double waiting = 0;
  int warm = 0;
  for (const PodMetrics& p : pods) {
    if (!p.ready || p.seconds_since_start < transient_delay_s) continue;
    ++warm;
    if (std::isfinite(p.queue_length)) waiting += std::max(0.0, p.queue_length);
  }
  return warm > 0 ? waiting / warm : 0;
}

// A batch this much larger than the arrivals explain (Little's law: running = rate x
// time in the batch) is still draining the backlog that filled it.
constexpr double kDrainingBatch = 1.5;

// Whether the warm pods run more requests than their arrivals explain: completing faster
// than requests arrive, they are draining a backlog, and the requests finishing ran in a
// larger batch than the rate arriving keeps. A request is in the batch from its prefill
// (its TTFT, with nothing waiting) to its last token.
bool draining_batch(std::span<const PodMetrics> pods, double transient_delay_s) {
  double running = 0, explained = 0;
  for (const PodMetrics& p : pods) {
    if (!p.ready || p.seconds_since_start < transient_delay_s) continue;
    const double in_batch_s = (p.avg_ttft_ms + p.avg_itl_ms * std::max(1.0, p.avg_output_tokens)) / 1000;
    if (!std::isfinite(p.running) || !std::isfinite(p.arrival_rate_rps) || !std::isfinite(in_batch_s)) continue;
    running += std::max(0.0, p.running);
    explained += std::max(0.0, p.arrival_rate_rps) * std::max(0.0, in_batch_s);
  }
  return explained > 0 && running > kDrainingBatch * explained;
}

}  // namespace

Learned learn_variant(VariantMemory memory, const ModelKey& model, const VariantTickInput& v, const TickTime& time,
                      const VariantLearning& how) {
  static const ColdStartConfig kColdStart{};
  Learned out;
  const VariantKey key{model, v.state.spec.name};
  if (how.cold_start) {
    ColdStartState cs = memory.cold_start.value_or(ColdStartState{});
    cs.prior_s = v.configured_cold_start_s;
    for (double sample : v.new_cold_starts_s) cs = observe_cold_start(cs, sample, kColdStart);
    if (!v.new_cold_starts_s.empty()) {
      out.events.push_back(
          ColdStartLearned{key, v.new_cold_starts_s, cold_start_estimate_s(cs, kColdStart), cs.prior_s});
    }
    memory.cold_start = std::move(cs);
  }
  const bool usable = !how.skip_unusable_pods || !unusable_metrics(v.state, max_sample_age_s(time.interval_s));
  // The pods read in place: copying them (and the spec) into a VariantInput was a tenth of
  // a tick's allocations.
  const std::span<const PodMetrics> pods = usable ? std::span<const PodMetrics>(v.state.pods) : std::span<const PodMetrics>{};
  const int max_batch = v.state.spec.max_batch_size;
  TunerConfig tuner_config{};
  tuner_config.bootstrap_at_batch = how.bootstrap_at_batch;
  VariantTuning tuning;
  const bool rejected_long = memory.tuner && memory.tuner->consecutive_rejections >= kRebootstrapAfterRejections;
  const bool bootstrapping = !memory.tuner || (how.bootstrap_without_queue && rejected_long);
  const double waiting = how.bootstrap_without_queue ? waiting_per_warm_pod(pods, tuner_config.transient_delay_s) : 0;
  // The windows after a backlog last until its batch has drained, not only until its queue
  // has (`cold-fleet` at seed 4: the queue empty at 510 s, the batch 95 requests per pod
  // then and 24 at the rate arriving, reached at 600 s; a fifth of the requests finishing
  // at 600 s missed the ITL target, none two windows later).
  if (waiting > 1 || (memory.waited_at_s && draining_batch(pods, tuner_config.transient_delay_s))) {
    memory.waited_at_s = time.now_s;
  }
  if (memory.waited_at_s && time.now_s - *memory.waited_at_s > kDrainedWindows * time.interval_s + 1e-6) {
    memory.waited_at_s.reset();
  }
  const bool drained_lately = !(waiting > 1) && memory.waited_at_s.has_value();
  if ((waiting > 1 || drained_lately) && !memory.tuner) {
    tuning = {std::nullopt,
              {"none", false, 0,
               waiting > 1 ? "no first estimate while " + fmt_num(waiting) +
                                 " requests wait per pod: a queued TTFT is not prefill time"
                           : "no first estimate within " + fmt_num(kDrainedWindows) +
                                 " windows of a backlog: the requests finishing ran in the batch it filled"}};
  } else if (waiting <= 1 && !drained_lately && bootstrapping && memory.tuner) {
    tuning = tune_variant(pods, max_batch, std::nullopt, tuner_config);
    if (tuning.tuner) {
      tuning.report.reason = "estimated afresh: the last " + std::to_string(memory.tuner->consecutive_rejections) +
                             " observations were all rejected";
    } else {
      tuning = tune_variant(pods, max_batch, std::move(memory.tuner), tuner_config);
    }
  } else {
    tuning = tune_variant(pods, max_batch, std::move(memory.tuner), tuner_config);
  }
  if (tuning.report.source != "none" && tuning.tuner) {
    const TunerState& t = *tuning.tuner;
    out.events.push_back(ParamsLearned{key, t.params, t.covariance, tuning.report.nis, tuning.report.accepted,
                                       tuning.report.source, tuning.report.reason, t.accepted_updates,
                                       t.rejected_updates});
  }
  memory.tuner = std::move(tuning.tuner);
  out.view.variant = v.state.spec.name;
  out.view.learned = memory;
  out.view.tuning = std::move(tuning.report);
  out.view.workload = aggregate(pods);
  out.next = std::move(memory);
  return out;
}

ModelObservation observe_model(const ModelTickInput& m, std::span<const VariantView> views, const TickTime& time) {
  static const ColdStartConfig kColdStart{};
  ModelObservation out;
  double pod_rate = 0;
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantTickInput& v = m.variants[i];
    out.ready_replicas += ready_replicas(v.state);
    const VariantMemory& learned = views[i].learned;
    if (learned.cold_start) out.horizon_s = std::max(out.horizon_s, cold_start_estimate_s(*learned.cold_start, kColdStart));
    // A frozen scrape repeats old figures: they are no evidence of the load now.
    const bool usable = !unusable_metrics(v.state, max_sample_age_s(time.interval_s));
    if (usable) out.usable = true;
    if (!usable) continue;
    for (const PodMetrics& p : v.state.pods) {
      if (std::isfinite(p.queue_length)) out.waiting_requests += std::max(0.0, p.queue_length);
      if (std::isfinite(p.arrival_rate_rps)) pod_rate += std::max(0.0, p.arrival_rate_rps);
    }
  }
  out.horizon_s += time.interval_s;
  out.usable = out.usable || out.ready_replicas == 0;  // the router still sees arrivals
  out.backlog = out.waiting_requests + std::max(0.0, m.upstream_queue);
  out.now.rate_rps = m.arrival_rate_rps > 0 ? m.arrival_rate_rps : pod_rate;
  if (!std::isfinite(out.now.rate_rps)) {
    out.now.rate_rps = 0;
    out.usable = false;
  }
  double weight = 0;
  for (const VariantView& view : views) {
    const double w = view.workload.total_arrival_rps;
    out.now.avg_input_tokens += w * view.workload.avg_input_tokens;
    out.now.avg_output_tokens += w * view.workload.avg_output_tokens;
    weight += w;
  }
  if (weight > 0) {
    out.now.avg_input_tokens /= weight;
    out.now.avg_output_tokens /= weight;
    out.has_token_lengths = true;
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
  forecaster = observe(std::move(forecaster), sample);
}

std::vector<ScalingRequest> saturation_fallback(const ModelTickInput& model, const SaturationConfig& config) {
  // The variants' states are copied only here, on the rare path that needs them whole.
  std::vector<VariantState> variants;
  variants.reserve(model.variants.size());
  for (const VariantTickInput& v : model.variants) variants.push_back(v.state);
  if (auto sat = analyze_saturation(variants, config)) {
    std::vector<ScalingRequest> requests = sat->requests;
    // Without a learned capacity a scale-down is a guess: hold instead.
    for (ScalingRequest& r : requests) {
      if (r.target_replicas < r.current_replicas) {
        r = hold(r.variant, r.current_replicas,
                 make_reason(ReasonCode::kNoCapacityData, "learning.no_release",
                             {{"current", r.current_replicas}, {"target", r.current_replicas}}, {std::move(r.reason)}));
      }
    }
    return requests;
  }
  std::vector<ScalingRequest> holds;
  for (const VariantState& v : variants) {
    holds.push_back(hold(v.spec.name, v.current_replicas,
                         make_reason(ReasonCode::kNoCapacityData, "learning.no_capacity",
                                     {{"current", v.current_replicas}, {"target", v.current_replicas}})));
  }
  return holds;
}

}  // namespace capstan
