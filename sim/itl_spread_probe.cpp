#include "sim/itl_spread_probe.hpp"

#include <utility>

#include "sim/simulation.hpp"
#include "sim/synthetic_trace.hpp"

namespace capstan::sim {

ItlSpreadProbe probe_itl_spread(const FleetConfig& fleet, double rate_rps, std::shared_ptr<LengthSource> lengths,
                                const SloTargets& slo, const QueueAnalyzer& model, double duration_s,
                                double warm_up_s, std::uint64_t seed) {
  Simulation sim(fleet, std::make_unique<SyntheticTrace>(poisson_rate(rate_rps), duration_s, std::move(lengths), seed),
                 seed, slo);
  const double d1 = model.decode_time_ms(1);
  ItlSpreadProbe out;
  double load = 0;
  for (double t = 30; t <= duration_s; t += 30) {
    sim.advance_to(t);
    const Observation obs = sim.observe();
    if (t <= warm_up_s) continue;
    capstan::VariantState v;
    v.current_replicas = 1;
    v.pods = obs.variants[0].pods;
    const auto served = served_request_itl(v, 60, 120);
    if (!served) continue;
    const auto m = model.analyze(served->rate_per_replica_rps);
    if (!m) continue;
    load += m->itl_ms - d1;
    out.windows.push_back(itl_tail_points(served->requests, d1, m->itl_ms));
  }
  if (!out.windows.empty()) out.mean_load_part_ms = load / static_cast<double>(out.windows.size());
  return out;
}

}  // namespace capstan::sim
