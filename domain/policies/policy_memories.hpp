// What each policy's `plan` remembers of one model between ticks (DESIGN.md "The tick,
// as data": plan owns demand memory, forecasters, sizing history and the per-variant
// state of the loops that decide each variant on their own). One plain struct per
// policy; ModelState (domain/tick/tick_state.hpp) holds the one of the policy that runs.
// Maps are keyed by variant name: a ModelState belongs to one model.
//
// What a variant learns from its own pods (EKF parameters, cold start) is not here but
// in VariantMemory, which `learn` owns.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/history.hpp"
#include "domain/forecast/demand_memory.hpp"
#include "domain/forecast/demand_surges.hpp"
#include "domain/policies/hybrid_headroom.hpp"
#include "domain/forecast/holt_predictor.hpp"
#include "domain/forecast/traffic_forecast.hpp"
#include "domain/model/ekf_tuner.hpp"
#include "domain/model/forward_pass_regression.hpp"
#include "domain/model/itl_tail.hpp"
#include "domain/model/served_capacity.hpp"
#include "domain/model/token_capacity.hpp"
#include "domain/policies/role_sizing.hpp"

namespace capstan {

// `fixed`: the replica count each variant had at its first tick.
struct FixedMemory {
  std::map<std::string, int> held;

  bool operator==(const FixedMemory&) const = default;
};

// `hybrid`: the lowest load per replica at which, after a release, the model found a
// variant without its margin while the SLO was missed, and when it last did
// (hybrid_policy.cpp's hold_release).
struct JudgedShort {
  double at_s = 0;
  double rps = 0;

  bool operator==(const JudgedShort&) const = default;
};

// `hybrid` (hybrid_policy.hpp).
struct HybridMemory {
  std::optional<TrafficForecastState> forecast;  // made at the model's first tick
  // Recent (time, observed request rate): capacity is released only below the peak of
  // the last scale-down cooldown and this tick's demand.
  DemandHistory recent_demand;
  // Surges of the traffic within a horizon, while they recur (demand_surges.hpp).
  DemandSurges surges;
  // The headroom the SLO's spent error budget has asked for (hybrid_headroom.hpp).
  MissHeadroom headroom;
  // Recent per-replica capacity estimates per variant: the median sizes the fleet, so
  // one tick's drifting fit does not move replicas.
  std::map<std::string, History<double>> recent_capacity;
  // The per-request ITL evidence of recent windows per variant, with where its next
  // fit starts (itl_tail.hpp). Kept here, not in VariantMemory: the evidence is read
  // against the model's traffic (all its variants' token lengths), which only plan sees.
  std::map<std::string, ItlEvidence> itl_windows;
  // Per variant, the factor below 1 that measured latency puts on its learned capacity
  // (hybrid_correction.hpp); a variant at 1 has no entry.
  std::map<std::string, double> correction;
  // When each replica still starting was asked for, oldest first, per variant.
  std::map<std::string, History<double>> starting_since;
  // Per variant, the rates its replicas demonstrably served within the SLO in the last
  // half hour, oldest first: a floor under the learned capacity at that request shape.
  std::map<std::string, History<DemonstratedRate>> demonstrated;
  // Per variant, the rates at which its replicas missed the SLO by their means with
  // nothing waiting in the last half hour, oldest first: a ceiling over the learned
  // capacity at that request shape (served_capacity.hpp's refuted_rps).
  std::map<std::string, History<DemonstratedRate>> refuted;
  // Per variant, the rates at which its replicas met the SLO (means within the targets,
  // at most the tail probability of requests over the ITL target) in the last half hour,
  // oldest first: with `refuted`, what a purchase compares variants by when their
  // learned figures do not agree with what their replicas did (cost_aware_optimizer's
  // VariantSupply::met_at).
  std::map<std::string, History<DemonstratedRate>> met;
  // Per variant, the load found short after a release (hold_release), and when the
  // policy last asked a variant for fewer replicas.
  std::map<std::string, JudgedShort> judged_short;
  std::map<std::string, double> released_at_s;
  SplitSizingState split;  // when the model is split into prefill and decode variants
};

// `erlang`: its Holt forecaster of the request rate.
struct ErlangMemory {
  std::optional<HoltState> forecast;

  bool operator==(const ErlangMemory&) const = default;
};

// `saturation-token`: the k2 history and remembered per-replica capacities.
struct TokenSaturationMemory {
  TokenCapacityState capacity;

  bool operator==(const TokenSaturationMemory&) const = default;
};

// The loops that decide each variant on its own (hpa, load, throughput) keep one state
// per variant.
struct HpaRecommendation {
  double at_s = 0;
  int replicas = 0;

  bool operator==(const HpaRecommendation&) const = default;
};

struct HpaVariantState {
  std::vector<HpaRecommendation> recommendations;  // oldest first, inside the longest window

  bool operator==(const HpaVariantState&) const = default;
};

struct LoadVariantState {
  RegressionState regression;
  std::optional<double> last_change_s;  // when the loop last moved the target

  bool operator==(const LoadVariantState&) const = default;
};

struct ThroughputVariantState {
  std::optional<TrafficForecastState> forecast;  // made at the first tick
  std::optional<TunerState> tuner;               // the queue model's learned parameters
  LoadVariantState load;
};

void to_json(nlohmann::json& j, const HpaVariantState& s);
void from_json(const nlohmann::json& j, HpaVariantState& s);
void to_json(nlohmann::json& j, const LoadVariantState& s);
void from_json(const nlohmann::json& j, LoadVariantState& s);
void to_json(nlohmann::json& j, const ThroughputVariantState& s);
void from_json(const nlohmann::json& j, ThroughputVariantState& s);

template <class VariantState>
struct PerVariantMemory {
  std::map<std::string, VariantState> variants;  // by variant name
};

using HpaMemory = PerVariantMemory<HpaVariantState>;
using LoadMemory = PerVariantMemory<LoadVariantState>;
using ThroughputMemory = PerVariantMemory<ThroughputVariantState>;

}  // namespace capstan
