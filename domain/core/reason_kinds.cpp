// One line per reason kind: the sentence each kind's figures render into (the pattern
// language is described in reason_kinds.hpp), and the renderers of the few kinds whose
// sentence has optional parts. Kind names are part of the event format: add new ones,
// never rename.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "domain/core/format.hpp"
#include "domain/core/reason_kinds.hpp"

namespace capstan::reason_text {
namespace {

// hybrid: the optimizer's sentence, then the demand it sized for and the capacity.
std::string render_hybrid(const Reason& r) {
  std::string text = r.causes().empty() ? missing(r, "cause") : r.causes().front().text();
  text += "; " + fill(r,
                      "demand {demand_rps} req/s (forecast {forecast_rps} req/s at t+{horizon_s:r} s, observed "
                      "{observed_rps} req/s + backlog {backlog}, {backlog_ahead:r} when new replicas are ready), "
                      "peak {peak_rps} req/s over the last {keep_s:r} s, supply {supply_rps} req/s");
  if (find_figure(r, "over_routed")) {
    text += fill(r, " without {over_routed} (the router sends each of its replicas {over_routed_rps} req/s, over the "
                    "{over_routed_capacity_rps} it carries within the SLO, and their requests miss it)");
  }
  if (find_figure(r, "surge_hold_rps")) {
    text += fill(r, ", {surge_hold_rps} req/s held for a rise within the cooldown and a start-up");
  }
  if (find_figure(r, "headroom")) {
    text += fill(r, ", capacity bought and kept at {headroom}x the demand (the SLO's error budget spent at "
                    "{budget_burn}x its pace over the last half hour)");
  }
  if (find_figure(r, "spare_replica_rps")) {
    text += fill(r, ", one replica's {spare_replica_rps} req/s kept spare (a single replica, or a fleet under a GPU "
                    "budget, is short for a start-up when it loses one)");
  }
  if (find_figure(r, "noise_rps")) {
    text += fill(r, " (demand over supply by less than the arrivals' noise, {noise_rps} req/s, buys nothing)");
  }
  if (find_figure(r, "tolerance")) {
    text += fill(r, " (at a steady load, a spare within {tolerance} of the supply is the capacity figure's scatter: "
                    "nothing released)");
  }
  if (find_figure(r, "bought_to_rps")) {
    text += fill(r, ", bought to {bought_to_rps} req/s, a tenth over the demand (at a steady load a fleet of many "
                    "replicas bought to the demand alone buys again at the capacity figure's next dip)");
  }
  if (find_figure(r, "release_held_rps")) {
    text += fill(r, ", a release counts each replica at most {release_held_rps} req/s less the margin (the load it "
                    "fell short at after a release)");
  }
  if (find_figure(r, "unsteady_release_rps")) {
    text += fill(r, ", a release counts each replica at most {unsteady_release_rps} req/s (the learned model's recent "
                    "figures swing too much to release into beyond their lowest or what the replicas served)");
  }
  if (find_figure(r, "small_fleet_release_rps")) {
    text += fill(r, ", a release counts each replica at up to {small_fleet_release_rps} req/s, half the learned "
                    "figure (a fleet of four or fewer is never released by 1.5x what its replicas were shown to "
                    "serve)");
  }
  if (number(r, "queued") > 0) text += fill(r, ", nothing released while {backlog} requests wait");
  if (!find_figure(r, "capacity_rps")) return text;
  text += fill(r, "; lambda* {capacity_rps} req/s per replica");
  const Figure::Value* bound = find_figure(r, "bound");
  const std::string b = bound && std::holds_alternative<std::string>(*bound) ? std::get<std::string>(*bound) : "";
  if (b == "ttft-tail") {
    text += fill(r, " (tail-bound: P(TTFT > {ttft_target_ms} ms) <= {tail_probability})");
  } else if (b == "itl-spread") {
    text += fill(r,
                 " (tail-bound: P(ITL > {itl_target_ms} ms) <= {tail_probability} by the measured spread of "
                 "requests' ITL, mean ITL sized to {itl_sized_ms:r1} ms)");
  } else if (b == "served") {
    text += " (as served now within the SLO, above the learned model's)";
  } else if (b == "demonstrated") {
    text += " (as served within the SLO in the last half hour at this request shape, above the learned model's)";
  } else if (b == "refuted") {
    text += " (as the replicas missed the SLO by their means at this rate and request shape in the last half hour, "
            "below the learned model's)";
  } else if (b == "measured") {
    text += fill(r, " (the learned model's x {correction}: measured latency missed the SLO at more)");
  } else if (b == "unsized") {
    text += " (the median of its recent figures: the learned model finds no rate within the SLO at this request "
            "shape now)";
  }
  const double wait = number(r, "observed_wait_ms");
  const bool bounded = std::isfinite(wait);
  const std::string queueing = (bounded ? fmt_num(wait) + " ms" : "unbounded") + " observed queueing";
  if (b == "unsized") return text + ", " + queueing;  // no model TTFT to add it to
  return text + ", est. TTFT " + fmt_num(number(r, "predicted_ttft_ms") + (bounded ? wait : 0)) + " ms incl. " +
         queueing;
}

// The GPU budget (stage 5) stopped a scale-up; the policy's own reason follows.
std::string render_budget(const Reason& r) {
  const bool cut = number(r, "target") > number(r, "current");
  std::string text = fill(r, cut ? "{change}: GPU budget cut the scale-up short" : "{change}: GPU budget blocked the scale-up");
  text += fill(r, " (wanted {wanted}, granted {target}; budget {gpu_budget} GPUs, {gpus_in_targets} in targets, "
                  "{gpus_per_replica} per replica)");
  if (!r.causes().empty() && !r.causes().front().text().empty()) text += "; policy: " + r.causes().front().text();
  return text;
}

// The prefill:decode band's adjustment: "prefill:decode 2:6 outside band [0.5, 1]: raise prefill 2 -> 3".
std::string render_band(const Reason& r) {
  const double hi = number(r, "max_prefill_per_decode");
  std::string text = fill(r, "prefill:decode {prefill}:{decode} outside band [{min_prefill_per_decode}, ") +
                     (hi > 0 ? fmt_num(hi) + "]" : "inf)") + ": raise ";
  const bool prefill = number(r, "prefill_target") != number(r, "prefill");
  const bool decode = number(r, "decode_target") != number(r, "decode");
  if (prefill) text += fill(r, "prefill {prefill} -> {prefill_target}");
  if (decode) text += fill(r, prefill ? " and decode {decode} -> {decode_target}" : "decode {decode} -> {decode_target}");
  if (number(r, "no_room") > 0) {
    text += fill(r, "; {no_room} replica(s) of that found no room below max replicas and the step limit");
  }
  return text;
}

// erlang: the forecast over the per-replica rate, and what Erlang-C (or lambda* alone) needs.
std::string render_erlang(const Reason& r) {
  std::string text = fill(r, "{change}: forecast {demand_rps} req/s at t+{horizon_s:r} s over {per_replica_rps} req/s per replica; ");
  if (find_figure(r, "wait_target_s")) {
    text += "Erlang-C needs " + (find_figure(r, "erlang_c_replicas") ? fill(r, "{erlang_c_replicas}") : std::string("?")) +
            fill(r, " for P(wait > {wait_target_s} s) < {tail_probability}");
  } else {
    text += fill(r, "no TTFT target to bound the wait by, so lambda* ({slo}) alone needs {replicas}");
  }
  if (find_figure(r, "warm_pool")) text += fill(r, ", warm pool {warm_pool} (P(violation) {p_violation})");
  return text;
}

// saturation (WVA's KV and queue spare): which trigger fired, over how many replicas.
std::string saturation_cause(const Reason& r) {
  std::string cause;
  if (number(r, "spare_kv") < number(r, "kv_trigger")) cause = fill(r, "spare KV {spare_kv} below trigger {kv_trigger}");
  if (number(r, "spare_queue") < number(r, "queue_trigger")) {
    if (!cause.empty()) cause += " and ";
    cause += fill(r, "spare queue {spare_queue} below trigger {queue_trigger}");
  }
  return cause + fill(r, " ({saturated} of {replicas} replicas saturated)");
}

std::string render_saturation_up(const Reason& r) {
  return fill(r, "{change}: ") + saturation_cause(r) + "; cheapest variant without pending replicas";
}

std::string render_saturation_up_blocked(const Reason& r) {
  return fill(r, "scale-up needed but every variant has pending replicas or is at its maximum: ") +
         saturation_cause(r);
}

std::string render_saturation_hold(const Reason& r) {
  std::string text = fill(r, "hold at {current}: spare KV {spare_kv} and queue {spare_queue} at or above triggers "
                             "{kv_trigger} / {queue_trigger}; ");
  const double non_saturated = number(r, "replicas") - number(r, "saturated");
  if (number(r, "scale_down_safe") > 0) return text + "no variant above its floor";
  if (non_saturated < number(r, "min_non_saturated")) {
    return text + fill(r, "scale-down needs {min_non_saturated} non-saturated replicas, have ") + fmt_num(non_saturated);
  }
  return text + "moving the load of 1 of " + fmt_num(non_saturated) +
         " non-saturated replicas onto the rest would leave too little spare";
}

std::string render_saturation_down(const Reason& r) {
  return fill(r, "{change}: spare KV {spare_kv} and queue {spare_queue} survive losing 1 of ") +
         fmt_num(number(r, "replicas") - number(r, "saturated")) + " non-saturated replicas; most expensive variant";
}

// One role of a prefill/decode split: its demand, supply and per-replica capacities.
std::string role_sentence(const Reason& r) {
  const Figure::Value* role_figure = find_figure(r, "role");
  const std::string role = role_figure && std::holds_alternative<std::string>(*role_figure)
                               ? std::get<std::string>(*role_figure) : std::string("?");
  std::string per_replica;
  for (const Figure& f : r.figures()) {
    if (f.name.rfind("capacity_rps:", 0) != 0) continue;
    per_replica += (per_replica.empty() ? "" : ", ") + f.name.substr(13) + " " + format_value(f.value, "") + " req/s";
  }
  const double wait = number(r, "observed_wait_ms");
  std::string text = fill(r, "{role} demand {demand_rps} req/s (forecast {forecast_rps} req/s at t+{horizon_s:r} s, observed "
                             "{observed_rps} req/s + backlog {backlog} incl. ") +
                     (role == "prefill" ? "upstream queue " : "decode queue ") +
                     fill(r, "{router_queue}, {backlog_ahead:r} when new replicas are ready), peak {peak_rps} req/s over "
                             "the last {keep_s:r} s, supply {supply_rps} req/s; per replica ") +
                     (per_replica.empty() ? std::string("unknown") : per_replica) +
                     fill(r, " ({utilization} x the forward-pass fit's rate at the ") + (role == "prefill" ? "TTFT" : "ITL") +
                     fill(r, " target, ISL {avg_input_tokens}, OSL {avg_output_tokens}), ") +
                     (std::isfinite(wait) ? fmt_num(wait) + " ms" : std::string("unbounded")) +
                     " observed queueing before " + role;
  if (number(r, "queued") > 0) text += fill(r, ", nothing released while {backlog} requests wait");
  return text;
}

std::string render_role_sized(const Reason& r) {
  return (r.causes().empty() ? missing(r, "cause") : r.causes().front().text()) + "; " + role_sentence(r);
}

std::string render_role_no_capacity(const Reason& r) {
  return fill(r, "hold at {current}: no capacity known for the {role} role yet (forward-pass fit of {fit_samples} iterations") +
         (number(r, "avg_input_tokens") > 0 ? "" : ", no request lengths seen") + "); " + role_sentence(r);
}

// hpa: the per-replica metric against its target, then whatever held or cut the change.
std::string render_hpa(const Reason& r) {
  std::string text = fill(r, "{change}: {per_replica} concurrent requests per replica against the {target_per_replica} "
                             "target (ratio {ratio})");
  if (number(r, "within_tolerance") > 0) text += ", within the tolerance";
  if (find_figure(r, "padded_ratio")) {
    text += fill(r, "; counting {unreported} unreported and {starting_counted} starting pod(s), ratio {padded_ratio}");
  }
  if (find_figure(r, "recommended")) {
    text += fill(r, "; scale-down to {recommended} held by the {stabilization_s} s stabilization window (highest "
                    "recommendation {highest_recommendation})");
  }
  if (find_figure(r, "rate_limit")) text += fill(r, "; scale-up limited to {rate_limit} this period");
  if (find_figure(r, "bound")) text += fill(r, "; bound {bound} of the variant");
  return text;
}

// load: each latency signal's range across engines against its target.
std::string load_signal(const Reason& r, const std::string& n) {
  const double lo = number(r, n + "_lo_ms"), hi = number(r, n + "_hi_ms"), target = number(r, n + "_target_ms");
  return "estimated " + std::string(n == "ttft" ? "TTFT" : "ITL") + " " +
         (lo == hi ? fmt_num(lo) : fmt_num(lo) + "-" + fmt_num(hi)) + " ms " +
         (target > 0 ? "against the " + fmt_num(target) + " ms target" : std::string("(no target)"));
}

std::string load_signals(const Reason& r) {
  std::string text;
  for (const char* n : {"ttft", "itl"}) {
    if (find_figure(r, std::string(n) + "_lo_ms")) text += (text.empty() ? "" : "; ") + load_signal(r, n);
  }
  return text;
}

std::string render_load_vote(const Reason& r) {
  const std::string on = fill(r, " on all {engines} engine(s)");
  if (r.kind() == "load.vote.up") {
    const Figure::Value* above = find_figure(r, "above");
    const std::string n = above && std::holds_alternative<std::string>(*above) ? std::get<std::string>(*above) : "ttft";
    return load_signal(r, n) + ", above it" + on;
  }
  if (r.kind() == "load.vote.down") return load_signals(r) + fill(r, ", below {sensitivity} x target") + on;
  if (r.kind() == "load.vote.consolidate" || r.kind() == "load.vote.refused") {
    const bool refused = r.kind() == "load.vote.refused";
    std::string text = load_signals(r) + (refused ? "; scale-down refused: on {remaining} engine(s) " : "; on {remaining} engine(s) ");
    std::string parts;
    if (find_figure(r, "ttft_added_ms")) {
      parts += refused ? "TTFT would add {ttft_added_ms} ms against a budget of {ttft_budget_ms} ms"
                       : "TTFT would add {ttft_added_ms} ms, within the {ttft_budget_ms} ms budget";
    }
    if (find_figure(r, "itl_post_ms")) {
      parts += std::string(parts.empty() ? "" : " and ") +
               (refused ? "ITL would reach {itl_post_ms} ms against {sensitivity} x target"
                        : "ITL would be {itl_post_ms} ms, below {sensitivity} x target");
    }
    if (parts.empty()) parts = "no latency target is at risk";
    return fill(r, text + parts);
  }
  if (r.kind() == "load.vote.single_engine") return load_signals(r) + "; one ready engine, nothing to consolidate";
  return load_signals(r) + fill(r, "; not all engines above the target nor below {sensitivity} x target");
}

// throughput: the predicted rate over the per-replica capacity, and where that came from.
std::string render_throughput_floor(const Reason& r) {
  const auto one = [&](const char* name) {
    const double c = number(r, name);
    return std::isfinite(c) ? fmt_num(c) : std::string("n/a");
  };
  std::string text = fill(r, "predicted {rate_rps} req/s (ISL {avg_input_tokens}, OSL {avg_output_tokens}) over "
                             "{per_replica_rps} req/s per replica at the SLO ({source}");
  const bool ttft = find_figure(r, "ttft_correction") != nullptr;
  if (ttft) text += ", correction TTFT " + one("ttft_correction");
  if (find_figure(r, "itl_correction")) text += (ttft ? " / ITL " : ", correction ITL ") + one("itl_correction");
  return text + fill(r, ") needs {replicas}");
}

// clang-format off
constexpr std::array kKinds{
    Kind{"fixed.static", "hold at {held}: static provisioning"},
    Kind{"hybrid.sized", "", render_hybrid},
    Kind{"hybrid.contradicted", "hold at {current}, wanted {wanted}: the pods meet the SLO at more than the learned "
                                "{capacity_rps} req/s per replica; the model: {cause}"},
    Kind{"hybrid.tail_growth", "{change}, wanted {wanted}: the pods meet the SLO's means at {served_rps} req/s per "
                               "replica, more than the learned {capacity_rps}, so they grow by their own measure "
                               "while their requests' ITL tail misses; the model: {cause}"},
    Kind{"hybrid.near_miss", "{change}, wanted {wanted}: the pods miss the ITL target by little ({itl_ms} ms "
                             "for {itl_target_ms}) at {served_rps} req/s per replica with TTFT within and no queue, "
                             "and a lower load by that much meets it, whatever the learned {capacity_rps} req/s "
                             "per replica says; the model: {cause}"},
    Kind{"hybrid.measured_need", "{change}: nothing learned yet, and measured latency or queue misses the SLO: "
                                 "{demand_rps} req/s incl. the backlog over {completing_rps} req/s completed per "
                                 "replica; the saturation rule: {cause}"},
    Kind{"hybrid.drained_miss", "{cause}; measured latency would ask for {wanted}, but the requests finishing "
                                "in the windows after a backlog ran in the batch it filled"},
    // the policies
    Kind{"erlang.sized", "", render_erlang},
    Kind{"erlang.counted", "hold at {current}: counted toward {chosen}'s Erlang-C servers"},
    // scale to zero and from zero (the enforcer's first rule)
    Kind{"zero.idle", "{change}: no requests in the last {retention_s} s"},
    Kind{"zero.keep_one", "{change}: scale to zero is off, so the cheapest variant keeps one replica"},
    Kind{"zero.wake", "scale up 0 -> 1: {waiting} requests waiting in the EPP for a model with no replicas"},
    Kind{"queueing.sized", "{cause} (lambda* {per_replica_rps} req/s per replica at {slo})"},
    Kind{"queueing.failed", "hold at {current}: {error}"},
    Kind{"learning.no_release", "hold at {current}: saturation would release a replica, but no capacity is learned yet"},
    Kind{"learning.no_capacity", "hold at {current}: no learned capacity yet"},
    // saturation
    Kind{"saturation.no_metrics", "no ready replica reported KV usage or queue length"},
    Kind{"saturation.transitioning", "no scaling while {moving} is transitioning (desired {moving_desired}, current {moving_current})"},
    Kind{"saturation.up_blocked", "", render_saturation_up_blocked},
    Kind{"saturation.up", "", render_saturation_up},
    Kind{"saturation.down", "", render_saturation_down},
    Kind{"saturation.hold", "", render_saturation_hold},
    Kind{"saturation.other_moves", "hold at {current}: {chosen} takes the change"},
    Kind{"saturation.failed", "hold at {current}: {error}"},
    Kind{"saturation_token.no_capacity", "hold at {current}: no token capacity known"},
    // prefill/decode roles sized apart
    Kind{"role.sized", "", render_role_sized},
    Kind{"role.no_capacity", "", render_role_no_capacity},
    Kind{"role.both_beside_split", "hold at {current}: a variant serving both phases beside a prefill/decode split is not sized"},
    // hpa
    Kind{"hpa.sized", "", render_hpa},
    Kind{"hpa.at_zero", "hold at 0: the HPA is inactive at zero replicas"},
    Kind{"hpa.all_starting", "every replica still starting"},
    // load (Dynamo's load-based planner)
    Kind{"load.vote.up", "", render_load_vote},
    Kind{"load.vote.down", "", render_load_vote},
    Kind{"load.vote.single_engine", "", render_load_vote},
    Kind{"load.vote.mixed", "", render_load_vote},
    Kind{"load.vote.consolidate", "", render_load_vote},
    Kind{"load.vote.refused", "", render_load_vote},
    Kind{"load.step", "{change}: {cause}"},
    Kind{"load.floor_refused", "{change}: scale-down refused by the floor of {floor} ({cause})"},
    Kind{"load.raised_to_floor", "{change}: raised from {from} to the floor of {floor} ({cause})"},
    Kind{"load.in_flight", "{change}: previous action in flight ({starting} replica(s) starting)"},
    Kind{"load.fit_not_ready", "{change}: wall-time regression not ready ({iterations} iterations, {needed} needed, and no negative slope)"},
    Kind{"load.cooldown", "{change}: last step {since_step_s} s ago, one step per {interval_s} s"},
    Kind{"load.no_passes", "no forward passes this tick"},
    Kind{"load.invalid_passes", "every forward pass had a missing or negative field"},
    Kind{"load.some_passes", "{reported} of {ready} ready replicas reported forward passes"},
    Kind{"variant.bound", "{change}: bound {target} of the variant ({cause})"},
    // throughput (Dynamo's throughput-based planner)
    Kind{"throughput.floor", "", render_throughput_floor},
    Kind{"throughput.no_traffic", "no traffic predicted; keeping the minimum of {least}"},
    Kind{"throughput.no_capacity", "predicted {rate_rps} req/s (ISL {avg_input_tokens}, OSL {avg_output_tokens}) but no per-replica capacity known (no profile, regression not ready, no learned queue model)"},
    Kind{"throughput.step", "{change}: {cause}"},
    Kind{"throughput.with_load", "{cause}; throughput floor {floor}: {cause2}"},
    Kind{"throughput.in_flight", "{change}: {direction} to {wanted} waits for the action in flight ({starting} replica(s) starting); {cause}"},
    Kind{"throughput.all_starting", "{change}: every replica still starting"},
    Kind{"throughput.no_ready", "no ready replica to observe"},
    // the finishing stages 1-3: metric guard, step limit, prefill:decode band
    Kind{"guard.hold_last_good", "hold at {target}: {cause}; keeping the last good target"},
    Kind{"guard.invalid_value", "pod {pod} reported an invalid value"},
    Kind{"guard.none_reported", "{ready} ready replica(s) but no pod reported metrics"},
    Kind{"guard.stale", "metrics stale: newest sample {newest_s} s old (limit {max_age_s} s)"},
    Kind{"step.limited", "{cause}; limited to {target} by the step limit"},
    Kind{"band.adjustment", "", render_band},
    Kind{"band.raised", "{change}: {cause} (before the band: {cause2})"},
    Kind{"budget.band", "{cause}; the P:D band asked for it: {cause2}"},
    Kind{"finisher.failed", "hold at {current}: {error}"},
    // the enforcer (stage 4) and the variant's bounds
    Kind{"enforcer.no_request", "hold at {current}: no request"},
    Kind{"enforcer.cooldown", "hold at {current}, wanted {wanted}: last change {since_change_s} s ago, scale-down cooldown {cooldown_s} s"},
    Kind{"enforcer.stabilization", "{change}, wanted {wanted}: highest target in the {window_s} s stabilization window"},
    Kind{"enforcer.in_flight", "keep target {target} (current {current}, wanted {wanted}): the previous action is in flight"},
    Kind{"bounds.min", "{change}: min_replicas {min_replicas}"},
    Kind{"bounds.max", "{change}: max_replicas {max_replicas}"},
    Kind{"budget.limited", "", render_budget},
    Kind{"budget.reclaimed", "{change}: the GPU budget ({gpu_budget} GPUs) gives a replica to {to_model} at priority {to_priority} over this model's {priority}; policy: {cause}"},
    // the cost-aware optimizer (stage 3 of the WVA pipeline)
    Kind{"optimizer.up", "{change}: {required:r}{unit:sp} required; {cost_per_replica} per {per_replica_capacity:r}{unit:sp} is the most cost-efficient"},
    Kind{"optimizer.down.least_efficient", "{change}: {spare:r}{unit:sp} spare; least cost-efficient variant first"},
    Kind{"optimizer.down.most_expensive", "{change}: {spare:r}{unit:sp} spare; most expensive variant first"},
    Kind{"optimizer.no_capacity", "{change}: {required:r}{unit:sp} required but no variant has known capacity"},
    Kind{"optimizer.not_useful", "{change}: {required:r}{unit:sp} required; not bought for it: {cost_per_replica} per {per_replica_capacity}{unit:sp} costs more than {best_cost_per_capacity} per 1{unit:sp} (the most cost-efficient variant's) over {useful_fraction}"},
    Kind{"optimizer.outserved", "{change}: {required:r}{unit:sp} required; not bought for it: its replicas missed the SLO at {missed_at}{unit:sp} each, at {cost_per_replica} a replica, where {outserved_by}'s met it at {met_at}{unit:sp} each, at {outserved_by_cost}"},
    Kind{"optimizer.placed_elsewhere", "{change}: {required:r}{unit:sp} required; placed on a more cost-efficient variant or none has room"},
    Kind{"optimizer.ready_short", "{change}: {spare:r}{unit:sp} spare with the replicas still starting, but the ready ones have {ready_spare}{unit:sp} to give, less than one replica here, until those are ready"},
    Kind{"optimizer.spare_too_small", "{change}: {spare:r}{unit:sp} spare, less than one replica here or at its floor"},
    Kind{"optimizer.within_thresholds", "{change}: demand {demand:r}{unit:sp} within thresholds of supply {supply:r}{unit:sp}"},
};
// clang-format on

// The table sorted by name, for a binary search: a reason is made several times per
// variant per tick, and a linear scan compared up to 75 names each time.
constexpr auto kByName = [] {
  std::array<Kind, kKinds.size()> sorted = kKinds;
  std::sort(sorted.begin(), sorted.end(), [](const Kind& a, const Kind& b) { return a.name < b.name; });
  return sorted;
}();
static_assert(std::adjacent_find(kByName.begin(), kByName.end(),
                                 [](const Kind& a, const Kind& b) { return a.name == b.name; }) == kByName.end(),
              "every reason kind is listed once");

}  // namespace

std::span<const Kind> kinds() { return kKinds; }

const Kind* find_kind(std::string_view name) {
  const auto it = std::lower_bound(kByName.begin(), kByName.end(), name,
                                   [](const Kind& k, std::string_view n) { return k.name < n; });
  return it != kByName.end() && it->name == name ? &*it : nullptr;
}

}  // namespace capstan::reason_text
