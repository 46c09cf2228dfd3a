#include "domain/model/tail_capacity.hpp"

#include <cmath>

#include "domain/core/format.hpp"
#include "domain/core/root_find.hpp"

namespace capstan {

Result<double> tail_capacity_rps(const QueueAnalyzer& queue, double target_ttft_ms, double p) {
  if (!(p > 0 && p < 1)) return invalid_argument("tail probability must be in (0, 1), got " + fmt_num(p));
  if (!(target_ttft_ms > 0) || !std::isfinite(target_ttft_ms)) {
    return invalid_argument("target TTFT must be > 0 ms, got " + fmt_num(target_ttft_ms));
  }
  const double k = std::log(1 / p);
  auto bound_ms = [&](double rate_rps) {
    auto m = queue.analyze(rate_rps);
    return m ? (m->ttft_ms - m->avg_wait_ms) + m->avg_wait_ms * k : INFINITY;
  };
  const double lo = queue.min_rate_rps(), hi = queue.max_rate_rps();
  const double f_lo = bound_ms(lo), f_hi = bound_ms(hi);
  if (f_lo > target_ttft_ms) {
    return Error{ErrorCode::kTargetUnreachable, "TTFT " + fmt_num(target_ttft_ms) +
                                                    " ms is missed even at the lowest rate (" +
                                                    fmt_num(f_lo) + " ms)"};
  }
  if (f_hi <= target_ttft_ms) return hi;
  return brent_root(bound_ms, lo, hi, f_lo, f_hi, target_ttft_ms, 1e-6).x;
}

}  // namespace capstan
