// The figures a `hybrid` decision is sized from, and the one place its sentence is
// rendered from them ("demand 12 req/s (forecast 11.2 req/s at t+330 s, ...)"): the
// sizing code fills these values and never writes prose itself.
#pragma once

#include <string>

namespace capstan {

// The model's demand and supply this tick.
struct HybridDemandFigures {
  double demand_rps = 0;
  double forecast_rps = 0;   // at the horizon
  double horizon_s = 0;
  double observed_rps = 0;
  double backlog = 0;        // requests waiting now
  double backlog_ahead = 0;  // projected when new replicas can be ready
  double peak_rps = 0;       // over the last keep_s
  double keep_s = 0;         // the scale-down cooldown
  double supply_rps = 0;
  bool queued = false;       // nothing is released while requests wait
};

// One variant's per-replica capacity and what bound it.
struct HybridCapacityFigures {
  double capacity_rps = 0;
  std::string bound;               // "mean", "ttft-tail", "itl-spread" or "served" (CapacitySized::bound)
  double ttft_target_ms = 0;
  double itl_target_ms = 0;
  double tail_probability = 0;
  double itl_sized_ms = 0;         // the mean ITL sized to, when bound is "itl-spread"
  double predicted_ttft_ms = 0;    // by the queue model at capacity_rps
  double observed_wait_ms = 0;     // queueing already observed; infinite when nothing serves it
};

std::string describe(const HybridDemandFigures& figures);
std::string describe(const HybridCapacityFigures& figures);

}  // namespace capstan
