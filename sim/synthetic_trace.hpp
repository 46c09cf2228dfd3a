// Synthetic arrival generators: a non-homogeneous Poisson process over [0, duration_s)
// with a given rate curve, sampled by thinning (Lewis and Shedler) with a seeded Rng.
// Shapes: constant (Poisson), diurnal sinusoid, steps, and periodic bursts.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "sim/length_source.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct RateCurve {
  std::function<double(double)> rate_rps;  // rate at time t (s)
  double max_rate_rps = 0;                 // an upper bound of rate_rps over the run
};

RateCurve poisson_rate(double rate_rps);
// mean * (1 + amplitude * sin(2 pi (t / period_s) + phase_rad)), amplitude in [0, 1].
RateCurve diurnal_rate(double mean_rps, double amplitude, double period_s, double phase_rad = 0);
// Piecewise constant: (start_s, rate_rps) pairs, sorted by start; 0 before the first.
RateCurve step_rate(std::vector<std::pair<double, double>> steps);
// Linear between (time_s, rate_rps) points, sorted by time; flat before the first and
// after the last.
RateCurve interpolated_rate(std::vector<std::pair<double, double>> points);
// base_rps, plus burst_rps during the first burst_s of every period_s.
RateCurve burst_rate(double base_rps, double burst_rps, double period_s, double burst_s);

class SyntheticTrace : public TraceSource {
 public:
  SyntheticTrace(RateCurve curve, double duration_s, std::shared_ptr<LengthSource> lengths,
                 std::uint64_t seed);
  Result<std::optional<Request>> next() override;

 private:
  RateCurve curve_;
  double duration_s_;
  std::shared_ptr<LengthSource> lengths_;
  Rng rng_;
  double t_s_ = 0;
};

}  // namespace capstan::sim
