// Per-replica sustainable rate by simulation and bisection; see sustainable_rate.hpp.
#include "sim/sustainable_rate.hpp"

#include <algorithm>

#include "sim/simulation.hpp"
#include "sim/synthetic_trace.hpp"

namespace capstan::sim {

namespace {

// The fleet a probe of `variant` runs: one warm replica of it, and for a variant of a
// prefill/decode split, options.counterpart_replicas warm replicas of `counterpart`.
FleetConfig probe_fleet(const VariantConfig& variant, const VariantConfig* counterpart, double client_timeout_s,
                        const KvTransferConfig& kv_transfer, const SustainableRateOptions& options) {
  FleetConfig fleet;
  fleet.model = "probe";
  fleet.client_timeout_s = client_timeout_s;
  fleet.kv_transfer = kv_transfer;
  VariantConfig one = variant;
  one.initial_replicas = one.min_replicas = one.max_replicas = 1;
  one.server.client_timeout_s = client_timeout_s;
  fleet.variants.push_back(one);
  if (counterpart != nullptr) {
    VariantConfig other = *counterpart;
    other.initial_replicas = other.min_replicas = other.max_replicas = std::max(1, options.counterpart_replicas);
    other.server.client_timeout_s = client_timeout_s;
    fleet.variants.push_back(other);
  }
  return fleet;
}

RateProbe probe_fleet_rate(const FleetConfig& fleet, const std::shared_ptr<LengthSource>& lengths,
                           const SloTargets& slo, double rate_rps, const SustainableRateOptions& options) {
  const double duration_s =
      std::clamp(options.probe_requests / rate_rps, options.min_probe_s, options.max_probe_s);
  Simulation sim(fleet,
                 std::make_unique<SyntheticTrace>(poisson_rate(rate_rps), duration_s, lengths, options.seed),
                 options.seed, slo);
  // An overloaded replica would take as long again to drain its backlog; past that the
  // answer (a miss) is known and the rest is not simulated.
  const double give_up_s = 2 * duration_s + 600;
  for (double t_s = 60; t_s <= give_up_s && sim.advance_to(t_s); t_s += 60) {
  }
  RateProbe p;
  p.rate_rps = rate_rps;
  p.requests = sim.arrived();
  p.attainment = p.requests > 0 ? static_cast<double>(sim.stats().met_slo()) / static_cast<double>(p.requests) : 1.0;
  return p;
}

SustainableRate search_rate(const FleetConfig& fleet, const std::shared_ptr<LengthSource>& lengths,
                            const SloTargets& slo, const SustainableRateOptions& options) {
  SustainableRate out;
  // The unloaded attainment: the same number of requests, so far apart that they
  // rarely meet.
  SustainableRateOptions alone = options;
  alone.max_probe_s = options.probe_requests / options.min_rate_rps;
  out.unloaded_attainment = probe_fleet_rate(fleet, lengths, slo, options.min_rate_rps, alone).attainment;
  if (out.unloaded_attainment < options.attainment_target) return out;
  auto meets = [&](double rate_rps) {
    out.probes.push_back(probe_fleet_rate(fleet, lengths, slo, rate_rps, options));
    return out.probes.back().attainment >= options.attainment_target;
  };
  double lo = 0, hi = 0;  // meets at lo (0: none found), fails at hi
  if (meets(1.0)) {
    lo = 1.0;
    for (double r = 2.0;; r *= 2) {
      if (r > options.max_rate_rps) {
        out.rate_rps = lo;
        return out;
      }
      if (!meets(r)) {
        hi = r;
        break;
      }
      lo = r;
    }
  } else {
    hi = 1.0;
    for (double r = 0.5;; r /= 2) {
      if (r < options.min_rate_rps) return out;
      if (meets(r)) {
        lo = r;
        break;
      }
      hi = r;
    }
  }
  for (int i = 0; i < options.bisection_steps; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (meets(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  out.rate_rps = lo;
  return out;
}

}  // namespace

RateProbe probe_rate(const VariantConfig& variant, double client_timeout_s,
                     const std::shared_ptr<LengthSource>& lengths, const SloTargets& slo,
                     double rate_rps, const SustainableRateOptions& options) {
  return probe_fleet_rate(probe_fleet(variant, nullptr, client_timeout_s, {}, options), lengths, slo, rate_rps,
                          options);
}

SustainableRate sustainable_rate(const VariantConfig& variant, double client_timeout_s,
                                 const std::shared_ptr<LengthSource>& lengths, const SloTargets& slo,
                                 const SustainableRateOptions& options) {
  return search_rate(probe_fleet(variant, nullptr, client_timeout_s, {}, options), lengths, slo, options);
}

SustainableRate sustainable_rate(const FleetConfig& fleet, std::size_t variant,
                                 const std::shared_ptr<LengthSource>& lengths, const SloTargets& slo,
                                 const SustainableRateOptions& options) {
  const VariantConfig& probed = fleet.variants.at(variant);
  const VariantConfig* counterpart = nullptr;
  if (probed.role != Role::kBoth) {
    const Role other = probed.role == Role::kPrefill ? Role::kDecode : Role::kPrefill;
    for (const VariantConfig& v : fleet.variants)
      if (v.role == other) {
        counterpart = &v;
        break;
      }
    if (counterpart == nullptr) return {};  // half a split serves nothing
  }
  return search_rate(probe_fleet(probed, counterpart, fleet.client_timeout_s, fleet.kv_transfer, options), lengths,
                     slo, options);
}

}  // namespace capstan::sim
