#include "domain/policies/hybrid_reason.hpp"

#include <cmath>

#include "domain/core/format.hpp"

namespace capstan {

std::string describe(const HybridDemandFigures& f) {
  std::string text = "demand " + fmt_num(f.demand_rps) + " req/s (forecast " + fmt_num(f.forecast_rps) + " req/s at t+" +
                     fmt_num(std::round(f.horizon_s)) + " s, observed " + fmt_num(f.observed_rps) + " req/s + backlog " +
                     fmt_num(f.backlog) + ", " + fmt_num(std::round(f.backlog_ahead)) +
                     " when new replicas are ready), peak " + fmt_num(f.peak_rps) + " req/s over the last " +
                     fmt_num(std::round(f.keep_s)) + " s, supply " + fmt_num(f.supply_rps) + " req/s";
  if (f.queued) text += ", nothing released while " + fmt_num(f.backlog) + " requests wait";
  return text;
}

std::string describe(const HybridCapacityFigures& f) {
  std::string text = "lambda* " + fmt_num(f.capacity_rps) + " req/s per replica";
  if (f.bound == "ttft-tail") {
    text += " (tail-bound: P(TTFT > " + fmt_num(f.ttft_target_ms) + " ms) <= " + fmt_num(f.tail_probability) + ")";
  } else if (f.bound == "itl-spread") {
    text += " (tail-bound: P(ITL > " + fmt_num(f.itl_target_ms) + " ms) <= " + fmt_num(f.tail_probability) +
            " by the measured spread of requests' ITL, mean ITL sized to " +
            fmt_num(std::round(f.itl_sized_ms * 10) / 10) + " ms)";
  } else if (f.bound == "served") {
    text += " (as served now within the SLO, above the learned model's)";
  }
  const bool bounded_wait = std::isfinite(f.observed_wait_ms);
  text += ", est. TTFT " + fmt_num(f.predicted_ttft_ms + (bounded_wait ? f.observed_wait_ms : 0)) + " ms incl. " +
          (bounded_wait ? fmt_num(f.observed_wait_ms) + " ms" : "unbounded") + " observed queueing";
  return text;
}

}  // namespace capstan
