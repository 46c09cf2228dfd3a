// What `hybrid` remembers between ticks to size a model, or one role of a split model
// (role_sizing.hpp), the same way in both: recent per-replica capacity figures, whose
// median sizes the fleet so that one tick's drifting fit does not move replicas; and
// recent request rates, whose peak over the scale-down cooldown (with this tick's
// demand) is what capacity is kept for.
// Plain values, serialised as they are by nlohmann::json.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "domain/core/history.hpp"

namespace capstan {

inline constexpr double kSpareMargin = 0.15;        // keep 15% above the peak demand before releasing
inline constexpr std::size_t kCapacityWindow = 10;  // ticks of capacity figures behind the median

// Appends a capacity figure, keeping the newest kCapacityWindow.
inline void remember_capacity(History<double>& history, double capacity) {
  // The oldest leaves before the newest comes: a full history then keeps its storage
  // instead of growing it for a moment (the same figures as pushing first).
  if (history.size() >= kCapacityWindow) history.pop_front();
  history.push_back(capacity);
}

// The upper median of a non-empty history.
inline double median_capacity(const History<double>& history) {
  std::vector<double> sorted(history.begin(), history.end());
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  return sorted[sorted.size() / 2];
}

// (time, observed request rate), oldest first.
using DemandHistory = History<std::pair<double, double>>;

// Records this tick's observed rate (when `record`: a tick whose rate is evidence),
// forgets what is older than keep_s, and returns the peak of what is left and of
// `demand`, this tick's sizing demand. Past ticks count by what arrived, not by what
// was forecast then: a forecast whose time has come is replaced by what was observed,
// and one still ahead by this tick's newer forecast, so capacity is not kept for a
// forecast the traffic has already proved wrong (after a stop, a trend-following
// forecaster still predicts a quarter of the old rate for a tick or two).
// The history is kept for retain_s (at least keep_s) for readers that look further back
// (demand_surges.hpp); the peak is over keep_s only.
inline double peak_demand(DemandHistory& recent, double now_s, double observed_rps, double demand, bool record,
                          double keep_s, double retain_s = 0) {
  if (record) recent.emplace_back(now_s, observed_rps);
  const double forget_before_s = now_s - std::max(keep_s, retain_s);
  while (!recent.empty() && recent.front().first < forget_before_s) recent.pop_front();
  double peak = demand;
  for (const auto& [t, d] : recent) {
    if (t >= now_s - keep_s) peak = std::max(peak, d);
  }
  return peak;
}

}  // namespace capstan
