#include "domain/stages/cost_aware_optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>


namespace capstan {
namespace {

double cost_per_capacity(const VariantSupply& v) {
  return v.per_replica_capacity > 0 ? v.cost_per_replica / v.per_replica_capacity
                                    : std::numeric_limits<double>::infinity();
}

// Indices in the order a scale-up fills them, stable by name on ties.
std::vector<std::size_t> by_cost_efficiency(const std::vector<VariantSupply>& vs) {
  std::vector<std::size_t> order(vs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double ea = cost_per_capacity(vs[a]), eb = cost_per_capacity(vs[b]);
    return ea != eb ? ea < eb : vs[a].variant < vs[b].variant;
  });
  return order;
}

std::vector<std::size_t> by_cost_descending(const std::vector<VariantSupply>& vs) {
  std::vector<std::size_t> order(vs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return vs[a].cost_per_replica != vs[b].cost_per_replica
               ? vs[a].cost_per_replica > vs[b].cost_per_replica
               : vs[a].variant > vs[b].variant;
  });
  return order;
}

// The most cost per unit of capacity a variant may have and still be bought: the most
// cost-efficient variant's over the signal's useful fraction (infinite when off).
double useful_cost_limit(const CapacitySignal& s) {
  if (!(s.useful_fraction > 0)) return std::numeric_limits<double>::infinity();
  double best = std::numeric_limits<double>::infinity();
  for (const VariantSupply& v : s.variants) best = std::min(best, cost_per_capacity(v));
  return best / s.useful_fraction;
}

bool not_useful(const CapacitySignal& s, const VariantSupply& v) {
  return v.per_replica_capacity > 0 && cost_per_capacity(v) > useful_cost_limit(s);
}

// The variant, with room in `targets`, whose replicas met the SLO at a cost per unit
// below variant i's at the load where i's replicas missed it; none when i's missed at no
// load measured or no such variant has room. Among several, the cheapest per unit met.
std::optional<std::size_t> outserved_by(const CapacitySignal& s, std::size_t i, const std::vector<int>& targets) {
  const VariantSupply& v = s.variants[i];
  if (!(v.missed_at > 0)) return std::nullopt;
  double best = v.cost_per_replica / v.missed_at;  // i's cost per unit, at least
  std::optional<std::size_t> by;
  for (std::size_t j = 0; j < s.variants.size(); ++j) {
    const VariantSupply& o = s.variants[j];
    if (j == i || !(o.met_at > 0) || targets[j] >= o.max_replicas) continue;
    const double at_most = o.cost_per_replica / o.met_at;
    if (at_most < best) {
      best = at_most;
      by = j;
    }
  }
  return by;
}

// Fills the requirement most cost-efficient variant first. A variant outserved by one
// with room waits for a second pass: it takes what is left once that one is full.
void scale_up(const CapacitySignal& s, std::vector<int>& targets) {
  double remaining = s.required;
  const std::vector<std::size_t> order = by_cost_efficiency(s.variants);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i : order) {
      const VariantSupply& v = s.variants[i];
      if (remaining <= 0) return;
      if (v.per_replica_capacity <= 0 || not_useful(s, v) || outserved_by(s, i, targets)) continue;
      const int room = std::max(v.max_replicas - targets[i], 0);
      const int add = std::min(static_cast<int>(std::ceil(remaining / v.per_replica_capacity)), room);
      targets[i] += add;
      remaining -= add * v.per_replica_capacity;
    }
  }
}

// Releases the spare from the variants in release order. Returns, per variant, whether
// a ready replica it would have released was kept for the ready ones' share.
std::vector<bool> scale_down(const CapacitySignal& s, std::vector<int>& targets) {
  std::vector<bool> kept_ready(s.variants.size(), false);
  double ready_left = s.ready_spare;
  const auto cheapest_it = std::min_element(
      s.variants.begin(), s.variants.end(), [](const VariantSupply& a, const VariantSupply& b) {
        return a.cost_per_replica != b.cost_per_replica ? a.cost_per_replica < b.cost_per_replica
                                                        : a.variant < b.variant;
      });
  const std::size_t cheapest = static_cast<std::size_t>(cheapest_it - s.variants.begin());
  double remaining = s.spare;
  std::vector<std::size_t> order = by_cost_descending(s.variants);
  if (s.release_least_efficient_first) {
    order = by_cost_efficiency(s.variants);
    std::reverse(order.begin(), order.end());
  }
  for (std::size_t i : order) {
    const VariantSupply& v = s.variants[i];
    if (remaining <= 0) break;
    if (v.per_replica_capacity <= 0) continue;
    int floor_replicas = std::max(v.min_replicas, 0);
    if (i == cheapest) {
      bool others_serve = false;
      for (std::size_t j = 0; j < targets.size(); ++j) others_serve |= (j != i && targets[j] > 0);
      if (!others_serve) floor_replicas = std::max(floor_replicas, 1);
    }
    const int removable = targets[i] - floor_replicas;
    if (removable <= 0) continue;
    int remove = std::min(static_cast<int>(std::floor(remaining / v.per_replica_capacity)), removable);
    const int starting = std::clamp(v.pending_replicas, 0, std::max(remove, 0));
    if (remove > starting && std::isfinite(ready_left)) {
      const double ready_fit = std::floor(std::max(0.0, ready_left) / v.per_replica_capacity);
      if (remove - starting > ready_fit) {
        remove = starting + static_cast<int>(ready_fit);
        kept_ready[i] = true;
      }
      ready_left -= (remove - starting) * v.per_replica_capacity;
    }
    if (remove <= 0) continue;
    targets[i] -= remove;
    remaining -= remove * v.per_replica_capacity;
  }
  return kept_ready;
}

}  // namespace

std::vector<ScalingRequest> optimize_cost_aware(const CapacitySignal& s) {
  std::vector<int> targets;
  for (const auto& v : s.variants) targets.push_back(v.current_replicas);
  const bool any_capacity = std::any_of(s.variants.begin(), s.variants.end(),
                                        [](const VariantSupply& v) { return v.per_replica_capacity > 0; });
  std::vector<bool> kept_ready(s.variants.size(), false);
  if (s.required > 0) {
    scale_up(s, targets);
  } else if (s.spare > 0) {
    kept_ready = scale_down(s, targets);
  }

  std::vector<ScalingRequest> out;
  for (std::size_t i = 0; i < s.variants.size(); ++i) {
    const VariantSupply& v = s.variants[i];
    const int current = v.current_replicas;
    const int target = targets[i];
    const ReasonCode code = direction_code(current, target);
    const auto figures = [&](std::initializer_list<Figure> more) {
      std::vector<Figure> f{{"current", current}, {"target", target}, {"unit", s.unit}};
      f.insert(f.end(), more);
      return f;
    };
    Reason why;
    if (target > current) {
      why = make_reason(code, "optimizer.up",
                        figures({{"required", s.required}, {"cost_per_replica", v.cost_per_replica},
                                 {"per_replica_capacity", v.per_replica_capacity}}));
    } else if (target < current) {
      why = make_reason(code, s.release_least_efficient_first ? "optimizer.down.least_efficient" : "optimizer.down.most_expensive",
                        figures({{"spare", s.spare}}));
    } else if (s.required > 0 && !any_capacity) {
      why = make_reason(ReasonCode::kNoCapacityData, "optimizer.no_capacity", figures({{"required", s.required}}));
    } else if (const auto by = s.required > 0 ? outserved_by(s, i, targets) : std::nullopt) {
      const VariantSupply& o = s.variants[*by];
      why = make_reason(code, "optimizer.outserved",
                        figures({{"required", s.required}, {"missed_at", v.missed_at},
                                 {"cost_per_replica", v.cost_per_replica}, {"outserved_by", o.variant},
                                 {"met_at", o.met_at}, {"outserved_by_cost", o.cost_per_replica}}));
    } else if (s.required > 0 && not_useful(s, v)) {
      double best = std::numeric_limits<double>::infinity();
      for (const VariantSupply& o : s.variants) best = std::min(best, cost_per_capacity(o));
      why = make_reason(code, "optimizer.not_useful",
                        figures({{"required", s.required}, {"per_replica_capacity", v.per_replica_capacity},
                                 {"cost_per_replica", v.cost_per_replica}, {"best_cost_per_capacity", best},
                                 {"useful_fraction", s.useful_fraction}}));
    } else if (s.required > 0) {
      why = make_reason(code, "optimizer.placed_elsewhere", figures({{"required", s.required}}));
    } else if (kept_ready[i]) {
      why = make_reason(code, "optimizer.ready_short", figures({{"spare", s.spare}, {"ready_spare", s.ready_spare}}));
    } else if (s.spare > 0) {
      why = make_reason(code, "optimizer.spare_too_small", figures({{"spare", s.spare}}));
    } else {
      why = make_reason(code, "optimizer.within_thresholds", figures({{"demand", s.demand}, {"supply", s.supply}}));
    }
    ScalingRequest r{v.variant, current, target, std::move(why)};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ScalingRequest> optimize_cost_aware(std::span<const CapacitySignal> signals) {
  std::vector<ScalingRequest> out;
  for (const auto& s : signals) {
    auto part = optimize_cost_aware(s);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

}  // namespace capstan
