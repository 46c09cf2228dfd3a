// A fixed, warm fleet fed a trace; see fixed_fleet_probe.hpp.
#include "sim/fixed_fleet_probe.hpp"

#include <algorithm>
#include <cmath>

#include "sim/simulation.hpp"

namespace capstan::sim {

FleetConfig fixed_fleet(const FleetConfig& fleet, const std::vector<int>& counts) {
  FleetConfig out = fleet;
  for (std::size_t i = 0; i < out.variants.size(); ++i) {
    const int n = i < counts.size() ? counts[i] : 0;
    out.variants[i].initial_replicas = out.variants[i].min_replicas = out.variants[i].max_replicas = n;
  }
  return out;
}

long long required_met(long long requests, double attainment_target) {
  // The small epsilon keeps 0.95 x 20 at 19, not 20, after rounding.
  return static_cast<long long>(std::ceil(attainment_target * static_cast<double>(requests) - 1e-9));
}

Result<FixedFleetProbe> probe_fixed_fleet(const FleetConfig& fleet, const std::vector<int>& counts,
                                          std::unique_ptr<TraceSource> trace, const SloTargets& slo,
                                          const FixedFleetProbeOptions& options) {
  FixedFleetProbe p;
  const long long expected = options.expected_requests;
  const long long needed = required_met(expected, options.attainment_target);
  const long long allowed_misses = expected - needed;
  FleetConfig config = fixed_fleet(fleet, counts);
  const bool cold = !options.warm_at_start.empty();
  if (cold) {
    for (std::size_t i = 0; i < config.variants.size(); ++i) {
      VariantConfig& v = config.variants[i];
      const int warm = i < options.warm_at_start.size() ? options.warm_at_start[i] : 0;
      v.initial_replicas = v.min_replicas = std::clamp(warm, 0, v.max_replicas);
    }
  }
  Simulation sim(std::move(config), std::move(trace), options.seed, slo);
  if (cold) {
    for (std::size_t i = 0; i < fleet.variants.size() && i < counts.size(); ++i) {
      auto asked = sim.set_desired(fleet.variants[i].name, counts[i]);
      if (!asked.ok()) return asked.error();
    }
  }
  double exhausted_s = -1;
  for (double t_s = options.step_s;; t_s += options.step_s) {
    const bool more = sim.advance_to(t_s);
    if (sim.error()) return *sim.error();
    const OutcomeStats& s = sim.stats();
    const long long misses = s.completed() + s.failed() - s.met_slo();
    if (expected > 0 && misses > allowed_misses) {
      p.stopped_early = true;
      break;
    }
    if (!more) break;
    if (sim.trace_exhausted()) {
      if (exhausted_s < 0) exhausted_s = t_s;
      if (t_s - exhausted_s >= options.give_up_after_s) break;
    }
  }
  const RunReport r = sim.report();
  p.requests = sim.arrived();
  p.met_slo = sim.stats().met_slo();
  const long long total = std::max(expected, p.requests);
  p.attainment = total > 0 ? static_cast<double>(p.met_slo) / static_cast<double>(total) : 1.0;
  p.meets = !p.stopped_early && p.met_slo >= required_met(total, options.attainment_target);
  p.gpu_hours = r.gpu_hours;
  p.cost = r.cost;
  p.duration_s = r.duration_s;
  return p;
}

}  // namespace capstan::sim
