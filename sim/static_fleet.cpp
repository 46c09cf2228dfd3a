// The cheapest fixed fleet over the whole trace; see static_fleet.hpp.
#include "sim/static_fleet.hpp"

#include <map>
#include <optional>

#include "sim/count_search.hpp"
#include "sim/fixed_fleet_probe.hpp"

namespace capstan::sim {

Result<StaticFleet> best_static_fleet(const FleetConfig& fleet, const TraceOpener& open, const SloTargets& slo,
                                      const StaticFleetOptions& options) {
  StaticFleet out;
  out.attainment_target = options.attainment_target;
  for (const auto& v : fleet.variants) out.variants.push_back(v.name);
  {
    auto trace = open();
    if (!trace.ok()) return trace.error();
    for (;;) {
      auto next = trace.value()->next();
      if (!next.ok()) return next.error();
      if (!next.value()) break;
      ++out.requests;
    }
  }
  if (out.requests == 0) return invalid_argument("the trace has no requests: no static fleet to size");
  // Probes per required met count and counts.
  std::map<std::pair<long long, std::vector<int>>, FixedFleetProbe> cache;
  std::optional<Error> error;
  double target = options.attainment_target;
  auto probe = [&](const std::vector<int>& counts) -> const FixedFleetProbe* {
    const auto key = std::make_pair(required_met(out.requests, target), counts);
    auto it = cache.find(key);
    if (it != cache.end()) return &it->second;
    if (error) return nullptr;
    auto trace = open();
    if (!trace.ok()) {
      error = trace.error();
      return nullptr;
    }
    ++out.probes;
    FixedFleetProbeOptions o;
    o.attainment_target = target;
    o.expected_requests = out.requests;
    o.seed = options.seed;
    auto p = probe_fixed_fleet(fleet, counts, std::move(trace).value(), slo, o);
    if (!p.ok()) {
      error = p.error();
      return nullptr;
    }
    return &(cache[key] = p.value());
  };
  const MeetsProbe meets = [&](const std::vector<int>& counts) {
    const FixedFleetProbe* p = probe(counts);
    return p != nullptr && p->meets;
  };
  std::vector<CountBounds> bounds;
  std::vector<int> hint, all_max;
  for (const VariantConfig& v : fleet.variants) {
    bounds.push_back({v.min_replicas, v.max_replicas, static_cast<double>(v.gpus_per_replica),
                      v.cost_per_replica_hour});
    hint.push_back(std::max(v.min_replicas, v.initial_replicas));
    all_max.push_back(v.max_replicas);
  }
  CountSearch search = cheapest_counts(bounds, meets, hint);
  if (error) return *error;
  out.reachable_attainment = options.attainment_target;
  const bool met = search.met;
  if (!met) {
    // No fixed fleet meets the target: the cheapest that serves as many requests as
    // every variant at max does, the best a fleet that never scales can do.
    auto trace = open();
    if (!trace.ok()) return trace.error();
    FixedFleetProbeOptions o;
    o.seed = options.seed;  // expected_requests 0: to the end, for its met count
    auto at_max = probe_fixed_fleet(fleet, all_max, std::move(trace).value(), slo, o);
    if (!at_max.ok()) return at_max.error();
    ++out.probes;
    out.reachable_attainment = static_cast<double>(at_max.value().met_slo) / static_cast<double>(out.requests);
    target = out.reachable_attainment;
    search = cheapest_counts(bounds, meets, hint);
    if (error) return *error;
  }
  auto choice = [&](const std::vector<int>& counts) {
    StaticChoice c;
    c.replicas = counts;
    if (const FixedFleetProbe* p = probe(counts)) {
      c.meets = met && p->meets;
      c.attainment = p->attainment;
      c.gpu_hours = p->gpu_hours;
      c.cost = p->cost;
    }
    return c;
  };
  out.best = choice(search.counts);
  std::vector<int> warm;
  bool cold = false;
  for (std::size_t v = 0; v < fleet.variants.size(); ++v) {
    warm.push_back(fleet.variants[v].initial_replicas);
    cold = cold || search.counts[v] > warm.back();
  }
  if (options.from_start && cold) {
    auto trace = open();
    if (!trace.ok()) return trace.error();
    FixedFleetProbeOptions o;
    o.seed = options.seed;  // expected_requests 0: to the end, for its met count
    o.warm_at_start = warm;
    auto started = probe_fixed_fleet(fleet, search.counts, std::move(trace).value(), slo, o);
    if (!started.ok()) return started.error();
    ++out.probes;
    const FixedFleetProbe& p = started.value();
    StaticChoice c;
    c.replicas = search.counts;
    c.attainment = static_cast<double>(p.met_slo) / static_cast<double>(out.requests);
    c.meets = p.met_slo >= required_met(out.requests, options.attainment_target);
    c.gpu_hours = p.gpu_hours;
    c.cost = p.cost;
    out.from_start = c;
  }
  for (std::size_t v = 0; v < fleet.variants.size(); ++v) {
    if (!search.alone[v]) {
      out.alone.push_back(std::nullopt);
      continue;
    }
    std::vector<int> counts;
    for (const auto& b : bounds) counts.push_back(b.min_replicas);
    counts[v] = *search.alone[v];
    out.alone.push_back(choice(counts));
  }
  if (error) return *error;
  return out;
}

}  // namespace capstan::sim
