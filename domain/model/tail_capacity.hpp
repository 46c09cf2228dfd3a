// A per-replica rate that bounds the TTFT tail, not only its mean (capstan's `hybrid`,
// docs/policies.md). The queue model gives the mean wait W(lambda) and the rest of the
// TTFT, S(lambda) = prefill + first decode step, which barely varies between requests.
// Taking the wait as exponential in its tail, P(TTFT > target) = exp(-(target - S) / W),
// which stays under p while W(lambda) ln(1/p) + S(lambda) <= target.
#pragma once

#include "domain/model/queue_model.hpp"
#include "domain/core/result.hpp"

namespace capstan {

// The largest rate in the model's range with P(TTFT > target_ttft_ms) <= p; errors with
// kTargetUnreachable when even the lowest rate misses it, kInvalidArgument for p
// outside (0, 1) or a target <= 0.
Result<double> tail_capacity_rps(const QueueAnalyzer& queue, double target_ttft_ms, double p);

// queue.size(slo) and tail_capacity_rps(queue, slo.ttft_ms, p), each the same bits as
// alone, with the tail's search made beside the sizing's TTFT search: the two searches
// are independent and about as long, and each evaluation is a chain solved two at a
// time (QueueAnalyzer::size with a RateSearch), so the pair costs about what the sizing
// alone does. For a policy that sizes a variant both ways (`hybrid`).
struct SizingWithTail {
  SizingResult mean;
  Result<double> tail_rps;
};
SizingWithTail size_with_tail(const QueueAnalyzer& queue, const SloTargets& slo, double p);

}  // namespace capstan
