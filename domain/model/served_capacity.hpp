// What a variant's replicas demonstrably serve within the SLO right now: a floor under
// any learned per-replica capacity (capstan's `hybrid`, docs/policies.md). A queue
// model fitted at light load can put lambda* below the rate the replicas are already
// serving well inside both targets (the EKF gave 1 req/s per H100 while each served
// 3.4 req/s at 39 ms ITL), and sizing by it buys replicas nothing needs.
//
// The floor counts only when every ready replica with a fresh sample holds no queue (at
// most one waiting request) and has its mean latencies within each target, and the
// replicas' means, pooled by their arrivals, are within kServedLatencyShare of each
// target: a mean right at the target has half its requests over it. The SLO counts
// requests, not replicas: with prompts of 12k-20k tokens, the requests batched with a
// long prefill on one replica read a mean ITL over 0.6 of the target while the fleet's
// requests as a whole met it (Mooncake: 24 H100 at 0.154 req/s each, all requests within
// 150 ms, two replicas over 90 ms), and judged replica by replica the floor was lost and
// the fit's 0.13 req/s bought 8 replicas more. One simulated H100 replica keeps 99% of
// requests within 2 s TTFT and 100 ms ITL up to a mean ITL of about 0.6-0.7 of the target,
// on 512/128-token requests (99.7% at 8 req/s) and on the Azure conversation mix (99.3% at
// 2.5 req/s), and attainment falls fast above it. The floor is then the mean arrival rate
// per replica.
#pragma once

#include <optional>

#include "domain/model/queue_model.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

inline constexpr double kServedLatencyShare = 0.6;

// The share of a pod's finished requests whose own ITL was over target_ms, counted
// from the largest histogram bound at or below it (an over-count when the target is
// not a bound); nothing when the pod reports no per-request ITL or no bound fits.
std::optional<double> share_over(const WindowHistogram& h, double target_ms);

// Per-replica req/s served within the SLO, or nothing when a fresh ready replica that
// has been sent requests misses the conditions above, the pooled means do, none serves
// traffic, or a sample is older than max_sample_age_s or not finite. A replica with no
// arrivals and none running (one just ready) is left out; one with no arrivals still
// running a request (a long prompt's) counts as a replica serving 0 req/s, with no
// latencies of its own to judge. Replicas started less than warm_up_s ago are left out,
// as their latencies describe their warm-up. Where pods report their requests' own ITLs
// (PodMetrics::request_itl), at most tail_probability of those requests, pooled, may be
// over the ITL target: a mean well inside it can still hide a tail that misses it.
// `latency_share` replaces kServedLatencyShare: at 1, what the pods serve with their means
// anywhere within the targets (hybrid's hold of a contradicted scale-up judges by it).
std::optional<double> served_within_slo_rps(const VariantState& variant, const SloTargets& slo,
                                            double max_sample_age_s, double warm_up_s,
                                            double tail_probability = 1,
                                            double latency_share = kServedLatencyShare);

// What the replicas demonstrably serve within the SLO this window, per replica, for
// remembering (hybrid's floor under a learned capacity): what served_within_slo_rps
// counts, or, where every fresh warm pod reports its requests' own ITLs, the same with
// the mean ITL and all but tail_probability of those requests within
// kDemonstratedItlShare of the ITL target instead (the SLO's own count, with a margin for
// the window's noise and for the requests that miss by their TTFT: at the target
// itself, a scenario at 0.9 attainment met 0.875); and in both, a batch that has
// filled: the requests running at least kSteadyBatchShare of what Little's law gives
// for the rate (arrivals x (TTFT + output tokens x ITL)), so a window that met a rise
// before its batch grew, and its latency with it, does not count.
// `served_now` is whether served_within_slo_rps (at tail_probability, the default
// latency share) gave a rate: the caller has judged it already.
std::optional<double> demonstrated_rps(const VariantState& variant, const SloTargets& slo, double max_sample_age_s,
                                       double warm_up_s, double tail_probability, bool served_now);

// The arrival rate per warm replica sent requests and the warm pods' mean TTFT and ITL
// pooled by their arrivals, when none of them holds a queue (more than one waiting
// request) and every sample is fresh and finite; pods started less than warm_up_s ago,
// or not sent anything yet, are left out. Pooled, one pod's mean just over the ITL
// target among ten does not make the pods' own measure useless (hybrid's growth by the
// pods' own measure while their ITL tail misses, or while they miss by little).
struct PooledLatency {
  double rps = 0;  // per replica
  double ttft_ms = 0;
  double itl_ms = 0;
  int pods = 0;  // pooled
};
std::optional<PooledLatency> pooled_latency(const VariantState& variant, double max_sample_age_s, double warm_up_s);

// The rate per replica at which a variant's replicas missed the SLO by their own means
// this window with nothing waiting: the warm pods sent requests hold no queue (at most
// one waiting request each) and their mean ITL, pooled by arrivals, is over its target.
// Not the TTFT: in the window a backlog drains, its requests' TTFT is the queue's (on
// `burst` a mean of 65 s at 3.7 req/s per replica, whose capacity is about 7.9). A queue model that puts the variant's capacity above that rate is
// contradicted at this request shape (latency grows with load), whatever it was fitted
// to: on the Azure code trace an A100 fitted at 1.1-1.2 req/s missed the 100 ms ITL
// target at 0.15 req/s per replica, and was bought to its maximum twice. Only a window
// whose batch is what its rate explains counts (running at most kSteadyBatchSpread x
// what Little's law gives for the window's rate): a burst late in a window fills the
// batch at more than the window's average rate. Nothing when any sample is stale or
// not finite, or no warm pod was sent requests.
std::optional<double> refuted_rps(const VariantState& variant, const SloTargets& slo, double max_sample_age_s,
                                  double warm_up_s);

inline constexpr double kSteadyBatchSpread = 1.25;
inline constexpr double kDemonstratedItlShare = 0.8;
inline constexpr double kSteadyBatchShare = 0.75;

// A per-replica rate a variant's replicas served within the SLO (or, as hybrid's
// `refuted`, missed it at), when, and at what request shape.
struct DemonstratedRate {
  double at_s = 0;
  double rps = 0;
  double input_tokens = 0;
  double output_tokens = 0;

  bool operator==(const DemonstratedRate&) const = default;
};

}  // namespace capstan
