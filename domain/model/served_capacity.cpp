#include "domain/model/served_capacity.hpp"

#include <cmath>

namespace capstan {
namespace {

bool within(double observed_ms, double target_ms, double share) {
  return target_ms <= 0 || (std::isfinite(observed_ms) && observed_ms >= 0 && observed_ms <= share * target_ms);
}

}  // namespace

std::optional<double> share_over(const WindowHistogram& h, double target_ms) {
  if (h.empty() || !std::isfinite(h.count) || target_ms <= 0) return std::nullopt;
  std::optional<double> at_or_below;
  for (std::size_t i = 0; i < h.upper_bounds_ms.size() && i < h.cumulative.size(); ++i) {
    if (h.upper_bounds_ms[i] <= target_ms) at_or_below = h.cumulative[i];
  }
  if (!at_or_below) return std::nullopt;
  return 1 - *at_or_below / h.count;
}

std::optional<double> served_within_slo_rps(const VariantState& variant, const SloTargets& slo,
                                            double max_sample_age_s, double warm_up_s, double tail_probability,
                                            double latency_share) {
  double rate = 0, ttft = 0, itl = 0, counted = 0, over = 0;
  int pods = 0;
  for (const PodMetrics* p : ready_pods(variant)) {
    if (!(p->sample_age_s <= max_sample_age_s)) return std::nullopt;
    if (p->seconds_since_start < warm_up_s) continue;
    if (!std::isfinite(p->arrival_rate_rps)) return std::nullopt;
    // A replica the router has not sent anything yet (one just ready) says nothing of
    // what the others serve: counted, it dropped `cold-fleet`'s capacity for a tick from
    // the 0.65 req/s 19 replicas served to a fit's 0.28, and bought 18 replicas.
    if (p->arrival_rate_rps == 0 && p->running == 0) continue;
    if (!(p->arrival_rate_rps >= 0) || !(p->queue_length <= 1)) return std::nullopt;
    // Sent nothing this window while still running a request (a long prompt's): a replica
    // serving at a rate of zero now, with no latencies of its own to judge.
    if (p->arrival_rate_rps == 0) {
      ++pods;
      continue;
    }
    if (!within(p->avg_itl_ms, slo.itl_ms, 1) || !within(p->avg_ttft_ms, slo.ttft_ms, 1)) return std::nullopt;
    if (auto share = share_over(p->request_itl, slo.itl_ms)) {
      counted += p->request_itl.count;
      over += *share * p->request_itl.count;
    }
    rate += p->arrival_rate_rps;
    ttft += p->arrival_rate_rps * p->avg_ttft_ms;
    itl += p->arrival_rate_rps * p->avg_itl_ms;
    ++pods;
  }
  if (!(rate > 0) || !within(itl / rate, slo.itl_ms, latency_share) || !within(ttft / rate, slo.ttft_ms, latency_share))
    return std::nullopt;
  if (counted > 0 && over / counted > tail_probability) return std::nullopt;
  return rate / pods;
}

std::optional<double> demonstrated_rps(const VariantState& variant, const SloTargets& slo, double max_sample_age_s,
                                       double warm_up_s, double tail_probability, bool served_now) {
  double rate = 0, running = 0, littles = 0;
  int pods = 0;
  for (const PodMetrics* p : ready_pods(variant)) {
    if (!(p->sample_age_s <= max_sample_age_s)) return std::nullopt;
    if (p->seconds_since_start < warm_up_s) continue;
    if (!std::isfinite(p->arrival_rate_rps)) return std::nullopt;
    if (p->arrival_rate_rps == 0 && p->running == 0) continue;  // not sent anything yet
    if (!(p->arrival_rate_rps > 0)) return std::nullopt;
    if (!(p->queue_length <= 1) || !within(p->avg_ttft_ms, slo.ttft_ms, kServedLatencyShare)) return std::nullopt;
    if (!served_now) {  // then every pod sent requests must show its requests' own ITLs
      const auto over = share_over(p->request_itl, kDemonstratedItlShare * slo.itl_ms);
      if (!over || *over > tail_probability || !within(p->avg_itl_ms, slo.itl_ms, kDemonstratedItlShare))
        return std::nullopt;
    }
    const double in_batch_s = (p->avg_ttft_ms + p->avg_output_tokens * p->avg_itl_ms) / 1000;
    if (!(std::isfinite(p->running) && std::isfinite(in_batch_s))) return std::nullopt;
    rate += p->arrival_rate_rps;
    running += p->running;
    littles += p->arrival_rate_rps * in_batch_s;
    ++pods;
  }
  if (pods == 0 || !(running >= kSteadyBatchShare * littles)) return std::nullopt;
  return rate / pods;
}

std::optional<double> refuted_rps(const VariantState& variant, const SloTargets& slo, double max_sample_age_s,
                                  double warm_up_s) {
  double rate = 0, itl = 0, running = 0, littles = 0;
  int pods = 0;
  for (const PodMetrics* p : ready_pods(variant)) {
    if (!(p->sample_age_s <= max_sample_age_s)) return std::nullopt;
    if (p->seconds_since_start < warm_up_s) continue;
    if (!std::isfinite(p->arrival_rate_rps)) return std::nullopt;
    if (!(p->arrival_rate_rps > 0)) continue;
    if (!(p->queue_length <= 1)) return std::nullopt;
    const double in_batch_s = (p->avg_ttft_ms + p->avg_output_tokens * p->avg_itl_ms) / 1000;
    if (!std::isfinite(in_batch_s) || !std::isfinite(p->running)) return std::nullopt;
    rate += p->arrival_rate_rps;
    itl += p->arrival_rate_rps * p->avg_itl_ms;
    running += p->running;
    littles += p->arrival_rate_rps * in_batch_s;
    ++pods;
  }
  if (pods == 0 || running > kSteadyBatchSpread * littles) return std::nullopt;
  if (!(slo.itl_ms > 0 && itl / rate > slo.itl_ms)) return std::nullopt;
  return rate / pods;
}

std::optional<PooledLatency> pooled_latency(const VariantState& v, double max_sample_age_s, double warm_up_s) {
  double rate = 0, ttft = 0, itl = 0;
  int pods = 0;
  for (const PodMetrics* p : ready_pods(v)) {
    if (!(p->sample_age_s <= max_sample_age_s)) return std::nullopt;
    if (p->seconds_since_start < warm_up_s || (p->arrival_rate_rps == 0 && p->running == 0)) continue;
    if (!(p->arrival_rate_rps > 0) || !(p->queue_length <= 1)) return std::nullopt;
    if (!std::isfinite(p->avg_ttft_ms) || !std::isfinite(p->avg_itl_ms)) return std::nullopt;
    rate += p->arrival_rate_rps;
    ttft += p->arrival_rate_rps * p->avg_ttft_ms;
    itl += p->arrival_rate_rps * p->avg_itl_ms;
    ++pods;
  }
  if (pods == 0 || !std::isfinite(rate)) return std::nullopt;
  return PooledLatency{rate / pods, ttft / rate, itl / rate, pods};
}

}  // namespace capstan
