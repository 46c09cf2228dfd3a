// How far ahead a predictor looks, in steps of the observation interval: the
// convention of Inferscale's forecaster (seed 004, chapter 4), steps = max(0, horizon_s /
// step_s), which may be fractional. Models that only forecast whole steps (ARIMA,
// seasonal) interpolate linearly between the two neighbouring whole steps.
#pragma once

#include <algorithm>
#include <cmath>

namespace capstan {

// step_s must be > 0 (validated by the caller).
inline double horizon_steps(double horizon_s, double step_s) {
  return std::max(0.0, horizon_s / step_s);
}

// at_step(n) gives the forecast n >= 0 whole steps ahead (0: the current estimate).
template <class AtStep>
double interpolate_steps(AtStep&& at_step, double steps) {
  const double h = std::isfinite(steps) ? std::max(0.0, steps) : 0.0;
  const double lo = std::floor(h);
  const double frac = h - lo;
  const double at_lo = at_step(static_cast<int>(lo));
  if (frac == 0.0) return at_lo;
  return at_lo + frac * (at_step(static_cast<int>(lo) + 1) - at_lo);
}

}  // namespace capstan
