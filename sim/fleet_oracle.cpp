// The fleet-level oracle, window by window; see fleet_oracle.hpp.
#include "sim/fleet_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "sim/count_search.hpp"
#include "sim/fixed_fleet_probe.hpp"

namespace capstan::sim {
namespace {

struct WindowPlanner {
  const FleetConfig& fleet;
  const SloTargets& slo;
  const FleetOracleOptions& options;
  long long probes = 0;
  std::optional<Error> error;

  // The GPU and cost plans for one window's requests (arrivals shifted to the window's start).
  void plan(const std::vector<Request>& requests, const std::vector<int>& gpu_hint,
            const std::vector<int>& cost_hint, FleetOracleWindow& w) {
    std::vector<CountBounds> by_gpus, by_cost;
    for (const VariantConfig& v : fleet.variants) {
      by_gpus.push_back({v.min_replicas, v.max_replicas, static_cast<double>(v.gpus_per_replica),
                         v.cost_per_replica_hour});
      by_cost.push_back({v.min_replicas, v.max_replicas, v.cost_per_replica_hour,
                         static_cast<double>(v.gpus_per_replica)});
    }
    if (requests.empty()) {
      for (const auto& b : by_gpus) w.replicas.push_back(b.min_replicas);
      w.cost_replicas = w.replicas;
      return;
    }
    const auto n = static_cast<long long>(requests.size());
    // Met or not, per target and counts.
    std::map<std::pair<long long, std::vector<int>>, bool> cache;
    auto run = [&](const std::vector<int>& counts, double target, long long expected) -> std::optional<FixedFleetProbe> {
      if (error) return std::nullopt;
      ++probes;
      FixedFleetProbeOptions o;
      o.attainment_target = target;
      o.expected_requests = expected;
      o.seed = options.seed;
      auto p = probe_fixed_fleet(fleet, counts, std::make_unique<RequestListTrace>(requests), slo, o);
      if (!p.ok()) {
        error = p.error();
        return std::nullopt;
      }
      return p.value();
    };
    auto meets_at = [&](double target) -> MeetsProbe {
      return [&, target](const std::vector<int>& counts) {
        const auto key = std::make_pair(required_met(n, target), counts);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
        const auto p = run(counts, target, n);
        return cache[key] = p && p->meets;
      };
    };
    CountSearch gpus = cheapest_counts(by_gpus, meets_at(options.attainment_target), gpu_hint);
    CountSearch cost = cheapest_counts(by_cost, meets_at(options.attainment_target), cost_hint);
    w.reachable_attainment = options.attainment_target;
    if (!gpus.met) {
      // Even every replica at max misses the target here: plan for what max reaches,
      // the cheapest counts that serve as many of the window's requests as it does.
      w.over_capacity = true;
      std::vector<int> all_max;
      for (const auto& b : by_gpus) all_max.push_back(b.max_replicas);
      const auto at_max = run(all_max, options.attainment_target, 0);  // to the end: its met count
      if (!at_max) return;
      w.reachable_attainment = static_cast<double>(at_max->met_slo) / static_cast<double>(n);
      gpus = cheapest_counts(by_gpus, meets_at(w.reachable_attainment), gpu_hint);
      cost = cheapest_counts(by_cost, meets_at(w.reachable_attainment), cost_hint);
    }
    w.replicas = gpus.counts;
    w.cost_replicas = cost.counts;
  }
};

}  // namespace

Result<FleetOracle> compute_fleet_oracle(const FleetConfig& fleet, TraceSource& trace, const SloTargets& slo,
                                         const FleetOracleOptions& options) {
  if (!(options.window_s > 0)) return invalid_argument("oracle window must be > 0 s");
  FleetOracle oracle;
  oracle.slo = slo;
  oracle.attainment_target = options.attainment_target;
  oracle.window_s = options.window_s;
  for (const auto& v : fleet.variants) oracle.variants.push_back(v.name);
  WindowPlanner planner{fleet, slo, options, 0, std::nullopt};

  std::vector<int> prev_gpu, prev_cost;
  for (const auto& v : fleet.variants) prev_gpu.push_back(v.initial_replicas);
  prev_cost = prev_gpu;
  std::vector<int> gpu_hint = prev_gpu, cost_hint = prev_gpu;
  double gpu_s = 0, startup_gpu_s = 0, cost = 0, last_arrival_s = 0;
  std::vector<Request> window;
  long long index = 0;  // of the window being filled

  // Plans window `index` with `window`'s requests and charges it up to end_s.
  auto close_window = [&](double end_s) {
    FleetOracleWindow w;
    w.start_s = static_cast<double>(index) * options.window_s;
    w.requests = static_cast<long long>(window.size());
    for (Request& r : window) r.arrival_s -= w.start_s;
    planner.plan(window, gpu_hint, cost_hint, w);
    if (planner.error) return;
    if (!window.empty()) {
      gpu_hint = w.replicas;
      cost_hint = w.cost_replicas;
    }
    const double length_s = std::clamp(end_s - w.start_s, 0.0, options.window_s);
    for (std::size_t i = 0; i < fleet.variants.size(); ++i) {
      const VariantConfig& v = fleet.variants[i];
      const double startup_s = v.pending_s + v.cold_start_s;
      gpu_s += w.replicas[i] * v.gpus_per_replica * length_s;
      startup_gpu_s += std::max(0, w.replicas[i] - prev_gpu[i]) * v.gpus_per_replica * startup_s;
      cost += (w.cost_replicas[i] * length_s + std::max(0, w.cost_replicas[i] - prev_cost[i]) * startup_s) / 3600.0 *
              v.cost_per_replica_hour;
    }
    prev_gpu = w.replicas;
    prev_cost = w.cost_replicas;
    if (w.over_capacity) ++oracle.windows_over_capacity;
    oracle.windows.push_back(std::move(w));
    window.clear();
  };

  for (;;) {
    auto next = trace.next();
    if (!next.ok()) return next.error();
    if (!next.value()) break;
    Request r = std::move(*next.value());
    ++oracle.requests;
    last_arrival_s = std::max(last_arrival_s, r.arrival_s);
    const auto k = static_cast<long long>(std::floor(std::max(0.0, r.arrival_s) / options.window_s));
    while (index < k) {
      close_window(static_cast<double>(index + 1) * options.window_s);
      if (planner.error) return *planner.error;
      ++index;
    }
    window.push_back(std::move(r));
  }
  if (oracle.requests == 0) return invalid_argument("the trace has no requests: the oracle has nothing to plan");
  close_window(last_arrival_s);
  if (planner.error) return *planner.error;
  oracle.probes = planner.probes;
  oracle.feasible = true;
  oracle.startup_gpu_hours = startup_gpu_s / 3600.0;
  oracle.gpu_hours = (gpu_s + startup_gpu_s) / 3600.0;
  oracle.cost = cost;
  return oracle;
}

}  // namespace capstan::sim
