#include "domain/policies/hybrid_correction.hpp"

#include <algorithm>
#include <cmath>

namespace capstan {

bool over_target(double measured_ms, double target_ms) {
  return target_ms > 0 && std::isfinite(measured_ms) && measured_ms > target_ms;
}

std::optional<LatencyVerdict> judge_latency(const VariantState& variant, const SloTargets& slo,
                                            double max_sample_age_s, double warm_up_s, bool backlog_waiting,
                                            double learned_rps) {
  LatencyVerdict verdict;
  double completing = 0, sent = 0;
  int judged = 0, completing_pods = 0;
  for (const PodMetrics* p : ready_pods(variant)) {
    if (!(p->sample_age_s <= max_sample_age_s) || p->seconds_since_start < warm_up_s) continue;
    if (!(std::isfinite(p->arrival_rate_rps) && p->arrival_rate_rps > 0)) continue;
    ++judged;
    sent += p->arrival_rate_rps;
    // A TTFT over target with requests waiting is the backlog's (step 3 of hybrid sizes
    // it): after a burst the queue keeps TTFT high for minutes on replicas that are fine.
    const bool queued = backlog_waiting || p->queue_length > 1;
    verdict.missed = verdict.missed || over_target(p->avg_itl_ms, slo.itl_ms) || (!queued && over_target(p->avg_ttft_ms, slo.ttft_ms));
    verdict.queued = verdict.queued || queued;
    // A request stays in the batch for about its output tokens times the ITL (Little's
    // law). That undercounts a batch that turns over between scrapes, so what the pod
    // was sent, which a saturated pod behind a router queue takes as it completes, is a
    // floor under it: the cap only ever lowers a learned figure above both.
    const double in_batch_s = p->avg_itl_ms * std::max(1.0, p->avg_output_tokens) / 1000;
    // A pod holding a queue is sent what waits too: there, Little's law alone.
    double pod_rps = p->arrival_rate_rps;
    if (std::isfinite(p->running) && p->running > 0 && std::isfinite(in_batch_s) && in_batch_s > 0) {
      pod_rps = p->queue_length > 1 ? p->running / in_batch_s : std::max(pod_rps, p->running / in_batch_s);
    }
    completing += pod_rps;
    ++completing_pods;
  }
  if (judged == 0) return std::nullopt;
  verdict.overloaded = learned_rps > 0 && sent / judged > learned_rps;
  if (completing_pods > 0) verdict.completing_rps = completing / completing_pods;
  return verdict;
}

double next_correction(double previous, const std::optional<LatencyVerdict>& verdict, double learned_rps,
                       bool replicas_starting, double interval_s) {
  double k = std::clamp(previous, kMinCorrection, 1.0);
  if (!verdict) return k;
  // A miss while replicas start is the transient the start is for: judged once they are there.
  // A miss behind a backlog is the backlog's (full batches draining it), sized by the
  // backlog projection: correcting for it raised slow-start's peak from 1.5x to 2.25x
  // the oracle's.
  if (verdict->missed && (verdict->overloaded || replicas_starting || verdict->queued)) return k;
  if (!verdict->missed) return std::min(1.0, 1 - (1 - k) * std::exp(-interval_s / kRelaxS));
  if (verdict->completing_rps > 0 && learned_rps > 0) k = std::min(k, verdict->completing_rps / learned_rps);
  k *= kShrinkWhileMissing;
  return std::clamp(k, kMinCorrection, 1.0);
}

}  // namespace capstan
