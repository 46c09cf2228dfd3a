// How far `hybrid` trusts a variant's learned per-replica capacity, by what its pods'
// measured latency says (issue 22, "holding while it drowns" and "a limit cycle on long
// context"; docs/policies.md, "Measured latency over the learned model").
//
// The queue model's lambda* is fitted to the windows a variant has served, and at long
// prompts or past saturation it can be several times what a replica sustains (17 A100 +
// 4 H100 held at a learned 12 req/s per replica while each sustained 1-3 and 10,000
// requests waited). A correction factor k in (0, 1] per variant multiplies the learned
// capacity:
//   - when the ready, warm pods' mean ITL is over its target, or their mean TTFT with
//     no queue at the pod (the SLO is missed now by the replicas' own serving, not by a
//     backlog waiting to be drained: that TTFT is the backlog projection's), k drops at once to what the replicas complete per replica (running
//     requests over their time in the batch, Little's law, or the rate they are sent
//     when that is more) over the learned figure;
//     and if the SLO is still missed with nothing starting -- every replica asked for
//     is there -- and nothing waiting, k shrinks by kShrinkWhileMissing per tick, so a
//     capacity the latency keeps contradicting is trusted less and less until it fits
//     (a miss with a queue is the backlog's, which the backlog projection sizes: after
//     a burst the replicas drain it at the capacity they have, and shrinking k for it
//     held twice the `burst` scenario's GPU-hours);
//   - a miss on pods sent more than the learned capacity is the overload's, and one
//     behind a backlog (a pod or router queue) the backlog's: the demand side sizes
//     both, and they move nothing; nor does a miss while replicas start;
//   - when the pods meet both targets, k relaxes back towards 1 with a time constant
//     of kRelaxS, so an estimate corrected at long prompts is not held forever, and
//     not so fast that the fleet is released back into the overload that lowered it.
// The factor is one number per variant, kept in HybridMemory and its codec.
#pragma once

#include <optional>

#include "domain/core/variant_state.hpp"
#include "domain/model/queue_model.hpp"

namespace capstan {

inline constexpr double kMinCorrection = 0.05;       // never below 1/20 of the learned figure
inline constexpr double kShrinkWhileMissing = 0.85;  // per tick, all capacity there, SLO still missed
inline constexpr double kRelaxS = 3600;              // time constant back towards 1
inline constexpr double kForgottenCorrection = 0.99; // at or above: back to 1, nothing kept

// Whether a measured mean latency is over its target: a target of 0 is unconstrained,
// and a measure that is not finite says nothing.
bool over_target(double measured_ms, double target_ms);

// What the fresh, warm, ready pods of a variant say about the SLO this window.
struct LatencyVerdict {
  // The pods are sent more than the learned capacity says they serve: a miss is then
  // the overload's, which the demand side sizes, and says nothing against the model.
  bool overloaded = false;
  bool missed = false;          // mean ITL, or mean TTFT with no queue, over its target
  double completing_rps = 0;    // per replica: max(running / time in the batch, arrivals); the first alone on a pod with a queue
  bool queued = false;          // a pod holds more than one waiting request
};

// Nothing when no fresh warm ready pod serves traffic (nothing to judge by). Pods with a
// sample older than max_sample_age_s, or started less than warm_up_s ago, are left out.
// `backlog_waiting`: the model holds a backlog (in the router or the servers) of more
// than one request per ready replica; every pod's TTFT is then taken as the backlog's.
// `learned_rps` (per replica) marks the verdict overloaded when the judged pods are
// sent more than that on average.
std::optional<LatencyVerdict> judge_latency(const VariantState& variant, const SloTargets& slo,
                                            double max_sample_age_s, double warm_up_s, bool backlog_waiting = false,
                                            double learned_rps = 0);

// The next correction factor from the previous one (1 when none), this tick's verdict,
// the learned per-replica capacity it corrects and the tick interval.
double next_correction(double previous, const std::optional<LatencyVerdict>& verdict, double learned_rps,
                       bool replicas_starting, double interval_s);

}  // namespace capstan
