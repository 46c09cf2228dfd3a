// Streaming outcome aggregates; see outcome_stats.hpp.
#include "sim/outcome_stats.hpp"

namespace capstan::sim {

bool meets_slo(const RequestOutcome& o, const SloTargets& slo) {
  if (o.failed) return false;
  const bool ttft_ok = !slo.constrains_ttft() || o.ttft_s * 1000.0 <= slo.ttft_ms;
  const bool itl_ok = !slo.constrains_itl() || o.mean_itl_s * 1000.0 <= slo.itl_ms;
  return ttft_ok && itl_ok;
}

void OutcomeStats::add(const RequestOutcome& o) {
  if (o.preemptions > 0) ++preempted_;
  if (o.failed) {
    ++failed_;
    return;
  }
  ++completed_;
  ttft_ms_.add(o.ttft_s * 1000.0);
  itl_ms_.add(o.mean_itl_s * 1000.0);
  e2e_sum_s_ += o.end_s - o.arrival_s;
  if (meets_slo(o, slo_)) ++met_;
}

void OutcomeStats::merge(const OutcomeStats& other) {
  completed_ += other.completed_;
  failed_ += other.failed_;
  met_ += other.met_;
  preempted_ += other.preempted_;
  e2e_sum_s_ += other.e2e_sum_s_;
  ttft_ms_.merge(other.ttft_ms_);
  itl_ms_.merge(other.itl_ms_);
}

}  // namespace capstan::sim
