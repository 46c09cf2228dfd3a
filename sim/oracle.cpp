// Offline GPU-hours lower bound; see oracle.hpp.
#include "sim/oracle.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim {

namespace {

struct Search {
  const std::vector<MixOption>& options;
  std::vector<std::size_t> order;  // best rate per weight first: a good first answer prunes most
  std::vector<int> counts, best;
  double best_weight = INFINITY;
  int best_replicas = 0;

  // Cheapest weight per rate among order[from..]: bounds what covering `rest` can cost.
  double bound(std::size_t from, double rest) const {
    double per_rate = INFINITY;
    for (std::size_t k = from; k < order.size(); ++k) {
      const MixOption& o = options[order[k]];
      if (o.rate_per_replica_rps > 0)
        per_rate = std::min(per_rate, o.weight_per_replica / o.rate_per_replica_rps);
    }
    return rest <= 0 ? 0 : rest * per_rate;
  }

  void run(std::size_t k, double rest, double weight, int replicas) {
    if (weight + bound(k, rest) > best_weight) return;
    if (k == order.size()) {
      if (rest > 1e-12) return;
      if (weight < best_weight || (weight == best_weight && replicas < best_replicas)) {
        best_weight = weight;
        best_replicas = replicas;
        best = counts;
      }
      return;
    }
    const MixOption& o = options[order[k]];
    int most = o.max_replicas;
    if (o.rate_per_replica_rps > 0)
      most = std::min(most, std::max(o.min_replicas, static_cast<int>(std::ceil(rest / o.rate_per_replica_rps))));
    else
      most = o.min_replicas;
    for (int n = most; n >= o.min_replicas; --n) {
      counts[order[k]] = n;
      run(k + 1, rest - n * o.rate_per_replica_rps, weight + n * o.weight_per_replica, replicas + n);
    }
    counts[order[k]] = 0;
  }
};

// The plan for one window: the cheapest mix per group of variants that serve requests
// whole, i.e. all of a role-both fleet, or each role of a prefill/decode split, since
// every request needs one of each.
std::vector<int> plan_window(const FleetConfig& fleet, const std::vector<MixOption>& options, double demand_rps) {
  std::vector<int> plan(options.size(), 0);
  for (Role role : {Role::kBoth, Role::kPrefill, Role::kDecode}) {
    std::vector<MixOption> group;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < options.size(); ++i)
      if (fleet.variants[i].role == role) {
        group.push_back(options[i]);
        at.push_back(i);
      }
    if (group.empty()) continue;
    const std::vector<int> mix = cheapest_mix(group, demand_rps);
    for (std::size_t k = 0; k < at.size(); ++k) plan[at[k]] = mix[k];
  }
  return plan;
}

// Every group (see plan_window) has a variant that sustains a positive rate.
bool serves_requests(const FleetConfig& fleet, const std::vector<SustainableRate>& rates) {
  bool any = false;
  for (Role role : {Role::kBoth, Role::kPrefill, Role::kDecode}) {
    bool present = false, positive = false;
    for (std::size_t i = 0; i < rates.size(); ++i)
      if (fleet.variants[i].role == role) {
        present = true;
        positive = positive || rates[i].rate_rps > 0;
      }
    if (present && !positive) return false;
    any = any || positive;
  }
  return any;
}

}  // namespace

std::vector<int> cheapest_mix(const std::vector<MixOption>& options, double demand_rps) {
  std::vector<int> all_max;
  double capacity = 0;
  for (const auto& o : options) {
    all_max.push_back(o.max_replicas);
    capacity += o.max_replicas * o.rate_per_replica_rps;
  }
  if (capacity < demand_rps) return all_max;
  Search s{options, {}, std::vector<int>(options.size(), 0), all_max, INFINITY, 0};
  for (std::size_t i = 0; i < options.size(); ++i) s.order.push_back(i);
  std::stable_sort(s.order.begin(), s.order.end(), [&](std::size_t a, std::size_t b) {
    auto per_rate = [](const MixOption& o) {
      return o.rate_per_replica_rps > 0 ? o.weight_per_replica / o.rate_per_replica_rps : INFINITY;
    };
    return per_rate(options[a]) < per_rate(options[b]);
  });
  s.run(0, std::max(0.0, demand_rps), 0, 0);
  return s.best;
}

Oracle compute_oracle(const FleetConfig& fleet, const TraceDemand& demand, const SloTargets& slo,
                      const OracleOptions& options) {
  Oracle oracle;
  oracle.slo = slo;
  oracle.attainment_target = options.rate.attainment_target;
  oracle.window_s = options.window_s;
  const auto lengths = empirical_lengths(demand.length_sample.empty()
                                             ? std::vector<TokenLengths>{{1, 1}}
                                             : demand.length_sample);
  std::vector<MixOption> by_gpus, by_cost;
  for (std::size_t i = 0; i < fleet.variants.size(); ++i) {
    const VariantConfig& v = fleet.variants[i];
    oracle.variants.push_back(v.name);
    oracle.sustainable.push_back(sustainable_rate(fleet, i, lengths, slo, options.rate));
    const double rate = oracle.sustainable.back().rate_rps;
    by_gpus.push_back({rate, static_cast<double>(v.gpus_per_replica), v.min_replicas, v.max_replicas});
    by_cost.push_back({rate, v.cost_per_replica_hour, v.min_replicas, v.max_replicas});
  }
  oracle.feasible = serves_requests(fleet, oracle.sustainable);
  if (!oracle.feasible || demand.requests == 0) return oracle;

  const double end_s = demand.last_arrival_s;
  std::vector<int> prev_gpu_plan, prev_cost_plan;
  for (const auto& v : fleet.variants) {
    prev_gpu_plan.push_back(v.initial_replicas);
    prev_cost_plan.push_back(v.initial_replicas);
  }
  double gpu_s = 0, startup_gpu_s = 0, cost = 0;
  for (double start_s = 0; start_s <= end_s; start_s += options.window_s) {
    const double length_s = std::min(options.window_s, std::max(end_s - start_s, 0.0));
    OracleWindow w;
    w.start_s = start_s;
    for (std::size_t b = 0; b < demand.arrivals_per_bucket.size(); ++b) {
      const double b_start = static_cast<double>(b) * demand.bucket_s;
      if (b_start + demand.bucket_s <= start_s || b_start >= start_s + options.window_s) continue;
      w.demand_rps = std::max(w.demand_rps, static_cast<double>(demand.arrivals_per_bucket[b]) / demand.bucket_s);
    }
    w.replicas = plan_window(fleet, by_gpus, w.demand_rps);
    w.cost_replicas = plan_window(fleet, by_cost, w.demand_rps);
    // Each group must cover the demand: a split's capacity is its weaker role's.
    for (Role role : {Role::kBoth, Role::kPrefill, Role::kDecode}) {
      bool present = false;
      double capacity = 0;
      for (std::size_t i = 0; i < w.replicas.size(); ++i)
        if (fleet.variants[i].role == role) {
          present = true;
          capacity += w.replicas[i] * by_gpus[i].rate_per_replica_rps;
        }
      if (present && capacity < w.demand_rps) w.over_capacity = true;
    }
    if (w.over_capacity) ++oracle.windows_over_capacity;
    for (std::size_t i = 0; i < fleet.variants.size(); ++i) {
      const auto& v = fleet.variants[i];
      const double startup_s = v.pending_s + v.cold_start_s;
      const int added = std::max(0, w.replicas[i] - prev_gpu_plan[i]);
      gpu_s += w.replicas[i] * v.gpus_per_replica * length_s;
      startup_gpu_s += added * v.gpus_per_replica * startup_s;
      const int added_cost = std::max(0, w.cost_replicas[i] - prev_cost_plan[i]);
      cost += (w.cost_replicas[i] * length_s + added_cost * startup_s) / 3600.0 * v.cost_per_replica_hour;
    }
    prev_gpu_plan = w.replicas;
    prev_cost_plan = w.cost_replicas;
    oracle.windows.push_back(std::move(w));
    if (length_s <= 0) break;
  }
  oracle.startup_gpu_hours = startup_gpu_s / 3600.0;
  oracle.gpu_hours = (gpu_s + startup_gpu_s) / 3600.0;
  oracle.cost = cost;
  return oracle;
}

}  // namespace capstan::sim
