// Galloping + bisection per variant, then the cheaper mixes; see count_search.hpp.
#include "sim/count_search.hpp"

#include <algorithm>
#include <tuple>

namespace capstan::sim {
namespace {

double weight_of(const std::vector<CountBounds>& b, const std::vector<int>& c, double CountBounds::*field) {
  double w = 0;
  for (std::size_t i = 0; i < c.size(); ++i) w += c[i] * (b[i].*field);
  return w;
}

int replicas_of(const std::vector<int>& c) {
  int n = 0;
  for (int x : c) n += x;
  return n;
}

bool at_most(const std::vector<int>& a, const std::vector<int>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] > b[i]) return false;
  return true;
}

struct Searcher {
  const std::vector<CountBounds>& bounds;
  const MeetsProbe& probe;
  std::vector<std::vector<int>> failed;

  bool meets(const std::vector<int>& c) {
    for (const auto& f : failed)
      if (at_most(c, f)) return false;  // ruled out by monotonicity, no probe needed
    if (probe(c)) return true;
    failed.push_back(c);
    return false;
  }

  // The fewest of variant v (others at their minimum) that meet, within its bounds.
  std::optional<int> fewest_alone(std::size_t v, int hint) {
    std::vector<int> c;
    for (const auto& b : bounds) c.push_back(b.min_replicas);
    const int lo_bound = bounds[v].min_replicas, hi_bound = bounds[v].max_replicas;
    auto at = [&](int n) {
      c[v] = n;
      return meets(c);
    };
    int lo = lo_bound - 1, hi = hi_bound + 1;  // fails at lo, meets at hi (sentinels unprobed)
    const int h = std::clamp(hint, lo_bound, hi_bound);
    if (at(h)) {
      hi = h;
      for (int step = 1; hi > lo_bound; step *= 2) {
        const int n = std::max(lo_bound, hi - step);
        if (!at(n)) {
          lo = n;
          break;
        }
        hi = n;
      }
    } else {
      lo = h;
      for (int step = 1; lo < hi_bound; step *= 2) {
        const int n = std::min(hi_bound, lo + step);
        if (at(n)) {
          hi = n;
          break;
        }
        lo = n;
      }
      if (hi > hi_bound) return std::nullopt;
    }
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      if (at(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }
};

}  // namespace

CountSearch cheapest_counts(const std::vector<CountBounds>& bounds, const MeetsProbe& probe,
                            const std::vector<int>& hint) {
  CountSearch out;
  const std::size_t n = bounds.size();
  Searcher s{bounds, probe, {}};
  std::vector<int> mins, maxs;
  for (const auto& b : bounds) {
    mins.push_back(b.min_replicas);
    maxs.push_back(b.max_replicas);
  }
  auto key = [&](const std::vector<int>& c) {
    return std::make_tuple(weight_of(bounds, c, &CountBounds::weight), weight_of(bounds, c, &CountBounds::tie_weight),
                           replicas_of(c));
  };
  std::optional<std::vector<int>> best;
  for (std::size_t v = 0; v < n; ++v) {
    out.alone.push_back(s.fewest_alone(v, v < hint.size() ? hint[v] : bounds[v].min_replicas));
    if (!out.alone.back()) continue;
    std::vector<int> c = mins;
    c[v] = *out.alone.back();
    if (!best || key(c) < key(*best)) best = c;
  }
  if (!best && s.meets(maxs)) best = maxs;
  if (!best) {
    out.counts = maxs;
    return out;
  }
  // The mixes cheaper than the best so far, cheapest first.
  long long space = 1;
  for (const auto& b : bounds) {
    space *= std::max(1, b.max_replicas - b.min_replicas + 1);
    if (space > kMaxMixCandidates) break;
  }
  if (n > 1 && space <= kMaxMixCandidates) {
    std::vector<std::vector<int>> candidates;
    std::vector<int> c = mins;
    for (;;) {
      if (key(c) < key(*best)) candidates.push_back(c);
      std::size_t i = 0;
      while (i < n && c[i] == bounds[i].max_replicas) {
        c[i] = bounds[i].min_replicas;
        ++i;
      }
      if (i == n) break;
      ++c[i];
    }
    std::sort(candidates.begin(), candidates.end(),
              [&](const std::vector<int>& a, const std::vector<int>& b) { return key(a) < key(b); });
    for (const auto& candidate : candidates)
      if (s.meets(candidate)) {
        best = candidate;
        break;
      }
  }
  out.counts = *best;
  out.met = true;
  return out;
}

}  // namespace capstan::sim
