#include "domain/model/tail_capacity.hpp"

#include <cmath>

#include "domain/core/format.hpp"
#include "domain/core/root_find.hpp"

namespace capstan {
namespace {

// W ln(1/p) + S at a rate, from the analyzer's answer there (infinite where it has none).
double tail_bound_ms(const Result<QueueMetrics>& m, double k) {
  return m ? (m->ttft_ms - m->avg_wait_ms) + m->avg_wait_ms * k : INFINITY;
}

// The search's bracket, or its answer when the bracket's ends give it.
struct TailStart {
  std::optional<Result<double>> answer;
  double k = 0, lo = 0, hi = 0, f_lo = 0, f_hi = 0;
};

TailStart start_tail(const QueueAnalyzer& queue, double target_ttft_ms, double p) {
  if (!(p > 0 && p < 1)) return {invalid_argument("tail probability must be in (0, 1), got " + fmt_num(p))};
  if (!(target_ttft_ms > 0) || !std::isfinite(target_ttft_ms)) {
    return {invalid_argument("target TTFT must be > 0 ms, got " + fmt_num(target_ttft_ms))};
  }
  TailStart s;
  s.k = std::log(1 / p);
  s.lo = queue.min_rate_rps();
  s.hi = queue.max_rate_rps();
  s.f_lo = tail_bound_ms(queue.analyze(s.lo), s.k);
  s.f_hi = tail_bound_ms(queue.analyze(s.hi), s.k);
  if (s.f_lo > target_ttft_ms) {
    s.answer = Error{ErrorCode::kTargetUnreachable,
                     "TTFT " + fmt_num(target_ttft_ms) + " ms is missed even at the lowest rate (" + fmt_num(s.f_lo) + " ms)"};
  } else if (s.f_hi <= target_ttft_ms) {
    s.answer = s.hi;
  }
  return s;
}

constexpr double kTailTolerance = 1e-6;

}  // namespace

Result<double> tail_capacity_rps(const QueueAnalyzer& queue, double target_ttft_ms, double p) {
  const TailStart s = start_tail(queue, target_ttft_ms, p);
  if (s.answer) return *s.answer;
  const auto bound_ms = [&](double rate_rps) { return tail_bound_ms(queue.analyze(rate_rps), s.k); };
  return brent_root(bound_ms, s.lo, s.hi, s.f_lo, s.f_hi, target_ttft_ms, kTailTolerance).x;
}

SizingWithTail size_with_tail(const QueueAnalyzer& queue, const SloTargets& slo, double p) {
  const TailStart s = start_tail(queue, slo.ttft_ms, p);
  if (s.answer) return {queue.size(slo), *s.answer};
  BrentSteps steps(s.lo, s.hi, s.f_lo, s.f_hi, slo.ttft_ms, kTailTolerance);
  const std::function<double(const Result<QueueMetrics>&)> read = [k = s.k](const Result<QueueMetrics>& m) {
    return tail_bound_ms(m, k);
  };
  SizingResult sized = queue.size(slo, {steps, read});
  // What the sizing left of the tail's search (all of it when the sizing searched nothing).
  while (const std::optional<double> x = steps.next()) steps.evaluated(read(queue.analyze(*x)));
  return {std::move(sized), steps.result().x};
}

}  // namespace capstan
