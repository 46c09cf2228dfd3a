// The fleet-level oracle, window by window; see fleet_oracle.hpp.
#include "sim/fleet_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "sim/count_search.hpp"
#include "sim/fixed_fleet_probe.hpp"
#include "sim/request.hpp"

namespace capstan::sim {
namespace {

// How many replicas below its own plan a window may be lowered to by pooling.
constexpr int kDescentSteps = 16;

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
    std::map<std::vector<int>, long long> full_met;  // met count of probes that ran to the end
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
      if (!p.value().stopped_early) full_met[counts] = p.value().met_slo;
      return p.value();
    };
    auto met_of = [&](const std::vector<int>& counts) -> long long {
      auto it = full_met.find(counts);
      if (it != full_met.end()) return it->second;
      const auto p = run(counts, options.attainment_target, 0);
      return p ? p->met_slo : 0;
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
    w.replicas = w.window_replicas = gpus.counts;
    w.cost_replicas = cost.counts;
    // The descent for pooling across windows: one replica fewer at a time, the one
    // whose removal loses the fewest met requests, with the requests still met.
    w.met = met_of(w.replicas);
    std::vector<int> at = w.replicas;
    for (int step = 0; step < kDescentSteps && !error; ++step) {
      std::optional<std::vector<int>> best;
      long long best_met = -1;
      for (std::size_t i = 0; i < at.size(); ++i) {
        if (at[i] <= by_gpus[i].min_replicas) continue;
        std::vector<int> c = at;
        --c[i];
        const long long met = met_of(c);
        if (met > best_met) {
          best_met = met;
          best = c;
        }
      }
      if (!best) break;
      at = *best;
      w.descent.push_back(at);
      w.descent_met.push_back(best_met);
    }
  }
};

double gpus_of(const FleetConfig& fleet, const std::vector<int>& counts) {
  double gpus = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) gpus += counts[i] * fleet.variants[i].gpus_per_replica;
  return gpus;
}

// Attainment is judged over the whole run: a window may fall below the target where
// the others meet more than it. Lowers windows along their descents, each time the
// step that loses the fewest met requests per GPU-second saved, while the run's met
// requests stay at the target (greedy, so close to, not exactly, the cheapest).
void pool_windows(const FleetConfig& fleet, double attainment_target, FleetOracle& oracle) {
  long long met = 0;
  for (const auto& w : oracle.windows) met += w.met;
  long long surplus = met - required_met(oracle.requests, attainment_target);
  std::vector<std::size_t> steps(oracle.windows.size(), 0);
  auto counts_at = [&](std::size_t w, std::size_t step) -> const std::vector<int>& {
    return step == 0 ? oracle.windows[w].window_replicas : oracle.windows[w].descent[step - 1];
  };
  auto met_at = [&](std::size_t w, std::size_t step) {
    return step == 0 ? oracle.windows[w].met : oracle.windows[w].descent_met[step - 1];
  };
  while (surplus > 0) {
    std::optional<std::size_t> best;
    double best_ratio = INFINITY;
    long long best_loss = 0;
    for (std::size_t w = 0; w < oracle.windows.size(); ++w) {
      const auto& window = oracle.windows[w];
      if (steps[w] >= window.descent.size()) continue;
      const long long loss = met_at(w, steps[w]) - met_at(w, steps[w] + 1);
      const double saved = (gpus_of(fleet, counts_at(w, steps[w])) - gpus_of(fleet, counts_at(w, steps[w] + 1))) *
                           window.length_s;
      if (loss > surplus || !(saved > 0)) continue;
      const double ratio = static_cast<double>(loss) / saved;
      if (ratio < best_ratio) {
        best_ratio = ratio;
        best = w;
        best_loss = loss;
      }
    }
    if (!best) break;
    ++steps[*best];
    surplus -= best_loss;
  }
  for (std::size_t w = 0; w < oracle.windows.size(); ++w) {
    oracle.windows[w].replicas = counts_at(w, steps[w]);
    oracle.windows[w].met = met_at(w, steps[w]);
    if (steps[w] > 0) ++oracle.windows_pooled;
  }
}

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
    w.length_s = std::clamp(end_s - w.start_s, 0.0, options.window_s);
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
  pool_windows(fleet, options.attainment_target, oracle);
  for (const FleetOracleWindow& w : oracle.windows) {
    for (std::size_t i = 0; i < fleet.variants.size(); ++i) {
      const VariantConfig& v = fleet.variants[i];
      const double startup_s = v.pending_s + v.cold_start_s;
      gpu_s += w.replicas[i] * v.gpus_per_replica * w.length_s;
      startup_gpu_s += std::max(0, w.replicas[i] - prev_gpu[i]) * v.gpus_per_replica * startup_s;
      cost += (w.cost_replicas[i] * w.length_s + std::max(0, w.cost_replicas[i] - prev_cost[i]) * startup_s) /
              3600.0 * v.cost_per_replica_hour;
    }
    prev_gpu = w.replicas;
    prev_cost = w.cost_replicas;
  }
  oracle.probes = planner.probes;
  oracle.feasible = true;
  oracle.startup_gpu_hours = startup_gpu_s / 3600.0;
  oracle.gpu_hours = (gpu_s + startup_gpu_s) / 3600.0;
  oracle.cost = cost;
  return oracle;
}

}  // namespace capstan::sim
