#include "domain/codec/reason_tags.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace capstan::reason_tags {
namespace {

// Frozen (reason_tags.hpp): append only. Codes as decision.hpp names them.
constexpr std::array<std::string_view, 15> kCodes{
    "hold",          "scale_up",      "scale_down",      "scale_to_zero",   "scale_from_zero",
    "min_replicas",  "max_replicas",  "keep_one_replica", "budget_limited", "cooldown",
    "pending_guard", "transitioning", "metrics_missing", "no_capacity_data", "pd_band",
};

// Frozen: append only. The kinds of reason_kinds.cpp as of this table's first version.
constexpr std::string_view kKinds[] = {
    "fixed.static", "hybrid.sized", "hybrid.contradicted", "hybrid.tail_growth", "hybrid.measured_need",
    "erlang.sized", "erlang.counted", "zero.idle", "zero.keep_one", "zero.wake", "queueing.sized", "queueing.failed",
    "learning.no_release", "learning.no_capacity", "saturation.no_metrics", "saturation.transitioning",
    "saturation.up_blocked", "saturation.up", "saturation.down", "saturation.hold", "saturation.other_moves",
    "saturation.failed", "saturation_token.no_capacity", "role.sized", "role.no_capacity", "role.both_beside_split",
    "hpa.sized", "hpa.at_zero", "hpa.all_starting", "load.vote.up", "load.vote.down", "load.vote.single_engine",
    "load.vote.mixed", "load.vote.consolidate", "load.vote.refused", "load.step", "load.floor_refused",
    "load.raised_to_floor", "load.in_flight", "load.fit_not_ready", "load.cooldown", "load.no_passes",
    "load.invalid_passes", "load.some_passes", "variant.bound", "throughput.floor", "throughput.no_traffic",
    "throughput.no_capacity", "throughput.step", "throughput.with_load", "throughput.in_flight",
    "throughput.all_starting", "throughput.no_ready", "guard.hold_last_good", "guard.invalid_value",
    "guard.none_reported", "guard.stale", "step.limited", "band.adjustment", "band.raised", "budget.band",
    "finisher.failed", "enforcer.no_request", "enforcer.cooldown", "enforcer.stabilization", "enforcer.in_flight",
    "bounds.min", "bounds.max", "budget.limited", "budget.reclaimed", "optimizer.up",
    "optimizer.down.least_efficient", "optimizer.down.most_expensive", "optimizer.no_capacity",
    "optimizer.not_useful", "optimizer.placed_elsewhere", "optimizer.spare_too_small", "optimizer.within_thresholds",
    "hybrid.near_miss", "hybrid.drained_miss", "optimizer.outserved", "optimizer.ready_short",};

// Frozen: append only. The figure names the kinds' sentences read, as of this table's
// first version.
constexpr std::string_view kFigures[] = {
    "current", "target", "demand_rps", "forecast_rps", "horizon_s", "observed_rps", "backlog", "backlog_ahead",
    "peak_rps", "keep_s", "supply_rps", "surge_hold_rps", "noise_rps", "capacity_rps", "ttft_target_ms",
    "tail_probability", "itl_target_ms", "itl_sized_ms", "correction", "wanted", "gpu_budget", "gpus_in_targets",
    "gpus_per_replica", "prefill", "decode", "min_prefill_per_decode", "prefill_target", "decode_target", "no_room",
    "per_replica_rps", "erlang_c_replicas", "wait_target_s", "slo", "replicas", "warm_pool", "p_violation",
    "spare_kv", "kv_trigger", "spare_queue", "queue_trigger", "saturated", "min_non_saturated", "role",
    "router_queue", "utilization", "avg_input_tokens", "avg_output_tokens", "fit_samples", "per_replica",
    "target_per_replica", "ratio", "unreported", "starting_counted", "padded_ratio", "recommended",
    "stabilization_s", "highest_recommendation", "rate_limit", "bound", "engines", "sensitivity", "remaining",
    "ttft_added_ms", "ttft_budget_ms", "itl_post_ms", "rate_rps", "source", "held", "served_rps", "completing_rps",
    "chosen", "retention_s", "waiting", "error", "moving", "moving_desired", "moving_current", "floor", "from",
    "starting", "iterations", "needed", "since_step_s", "interval_s", "reported", "ready", "least", "direction",
    "pod", "newest_s", "max_age_s", "since_change_s", "cooldown_s", "window_s", "min_replicas", "max_replicas",
    "to_model", "to_priority", "priority", "required", "unit", "cost_per_replica", "per_replica_capacity", "spare",
    "best_cost_per_capacity", "useful_fraction", "demand", "supply", "queued", "observed_wait_ms",
    "predicted_ttft_ms", "max_prefill_per_decode", "scale_down_safe", "within_tolerance", "above", "ttft_correction",
    "itl_correction", "spare_replica_rps", "itl_ms", "tolerance", "release_held_rps", "headroom", "budget_burn",
    "bought_to_rps", "over_routed", "over_routed_rps", "over_routed_capacity_rps", "unsteady_release_rps",
    "small_fleet_release_rps", "missed_at", "outserved_by", "met_at", "outserved_by_cost", "ready_spare",};

// A table's names to their tags: open addressing over four times as many slots. A
// decision looks up about twenty names as it is written (replay verify writes every
// recomputed one), and std::unordered_map's hash of every character and its buckets
// were a fiftieth of verify. Each table builds its own once (kind_tag, figure_tag): a
// function-local static inside a template over the table's size alone would be shared
// by any two tables that happen to have the same length.
class TagIndex {
 public:
  template <std::size_t N>
  explicit TagIndex(const std::string_view (&table)[N]) : slots_(std::bit_ceil(4 * N)) {
    for (std::size_t i = 0; i < N; ++i) {
      std::size_t at = hash(table[i]) & (slots_.size() - 1);
      while (slots_[at].tag >= 0) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = {table[i], static_cast<int>(i)};
    }
  }

  std::optional<int> find(std::string_view name) const {
    for (std::size_t at = hash(name) & (slots_.size() - 1);; at = (at + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[at];
      if (slot.tag < 0) return std::nullopt;
      if (slot.name == name) return slot.tag;
    }
  }

 private:
  struct Slot {
    std::string_view name;
    int tag = -1;
  };
  // Its length and three of its characters: they tell the tables' names apart about as
  // well as all of them (a probe compares whole names anyway), for a few instructions.
  static std::uint32_t hash(std::string_view name) {
    std::uint32_t h = static_cast<std::uint32_t>(name.size()) * 0x9E3779B1u;
    if (!name.empty()) {
      for (const char c : {name.front(), name[name.size() / 2], name.back()}) {
        h = (h ^ static_cast<std::uint8_t>(c)) * 16777619u;
      }
    }
    return h ^ (h >> 15);
  }
  std::vector<Slot> slots_;  // a quarter full at most, so a probe ends soon at an empty one
};

template <std::size_t N>
std::optional<std::string_view> name_in(const std::string_view (&table)[N], long long tag) {
  if (tag < 0 || tag >= static_cast<long long>(N)) return std::nullopt;
  return table[tag];
}

}  // namespace

std::optional<int> code_tag(ReasonCode code) {
  const std::string_view name = to_string(code);
  for (std::size_t i = 0; i < kCodes.size(); ++i) {
    if (kCodes[i] == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::optional<int> kind_tag(std::string_view kind) {
  static const TagIndex index(kKinds);
  return index.find(kind);
}
std::optional<int> figure_tag(std::string_view figure_name) {
  static const TagIndex index(kFigures);
  return index.find(figure_name);
}

std::optional<ReasonCode> code_of(long long tag) {
  if (tag < 0 || tag >= static_cast<long long>(kCodes.size())) return std::nullopt;
  auto code = parse_reason_code(kCodes[tag]);
  return code ? std::optional<ReasonCode>(*code) : std::nullopt;
}

std::optional<std::string_view> kind_of(long long tag) { return name_in(kKinds, tag); }
std::optional<std::string_view> figure_of(long long tag) { return name_in(kFigures, tag); }

}  // namespace capstan::reason_tags
