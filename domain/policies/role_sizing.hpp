// How `hybrid` sizes a model split into prefill and decode variants (issue 9,
// "disagg"; docs/policies.md, "hybrid"). Every request passes through one prefill
// replica and then one decode replica, so each role must carry the model's whole
// request rate, and a role's variants are alternatives to each other only, never to
// the other role's. Each role is sized on its own:
//   demand   D_r = max(forecast of the model's request rate at the cold-start horizon,
//                      observed rate + the role's backlog still waiting when new
//                      replicas can be ready (backlog_projection.hpp) / drain time)
//            where the prefill backlog is its pods' waiting requests + the router's
//            upstream queue, and the decode backlog its pods' waiting requests + the
//            router's decode queue (prefilled requests no decode replica has taken)
//   capacity per replica, from the variant's own forward passes through the
//            forward-pass regression of Dynamo's load loop (1D on prefill tokens for a
//            prefill engine, on decode KV tokens for a decode engine): for prefill, the
//            prompts per second of the largest chunk (<= max_num_batched_tokens) whose
//            iteration takes at most half the TTFT target, since a new prompt waits for
//            the iteration under way and then runs in the next; for decode, Dynamo's
//            decode_engine_rate at the ITL target. Both at kRoleUtilization of that rate
//            and as the median of the last ticks' figures, so one tick's fit does not
//            move replicas.
// then one CapacitySignal per role through the cost-aware optimizer, spare capacity
// kept for the peak demand of the last scale-down cooldown, as for a whole model.
// Everything here is a pure function of its arguments and a SplitSizingState value.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/decision.hpp"
#include "domain/core/history.hpp"
#include "domain/forecast/demand_memory.hpp"
#include "domain/model/forward_pass_regression.hpp"
#include "domain/tick/policy_config.hpp"
#include "domain/tick/tick_input.hpp"
#include "domain/forecast/traffic_forecast.hpp"

namespace capstan {

// The share of an engine's rate at the SLO a role is sized for: at the full rate the
// average request only just meets the target, and arrivals within a tick are bursty.
inline constexpr double kRoleUtilization = 0.85;

// Some variant of the model has role prefill or decode.
bool is_split(const ModelTickInput& model);

// One replica's request rate at the SLO for its role (spec.role prefill or decode) and
// the request shape, from its forward-pass fit, before kRoleUtilization; 0 when the
// shape is unknown. The chunk size is spec.max_num_batched_tokens (2048 when unknown).
double role_engine_rps(const WallTimeFit& fit, const VariantSpec& spec, const TrafficSample& shape,
                       const SloTargets& slo);

// The requests' prompt and answer lengths as the decode pods report them (a prefill pod
// reports one output token: its own); nullopt when no usable decode pod had traffic.
std::optional<TrafficSample> split_request_shape(const ModelTickInput& model, double max_sample_age_s);

// What waits for one role: in its pods, and at the router (upstream queue for prefill,
// decode queue for decode).
struct RoleBacklog {
  double waiting = 0;       // in the role's usable pods
  double router_queue = 0;
  double total() const { return waiting + router_queue; }
};
RoleBacklog role_backlog(const ModelTickInput& model, Role role, double max_sample_age_s);

// What outlives a tick of one split model.
struct SplitSizingState {
  std::map<std::string, RegressionState> regressions;           // by variant
  std::map<std::string, History<double>> recent_capacity_rps;  // by variant, newest last
  // (time, demand) per role ("prefill", "decode"), over the scale-down cooldown.
  std::map<std::string, DemandHistory> recent_demand;
  std::optional<TrafficSample> last_shape;  // the last request shape seen
};

void to_json(nlohmann::json& j, const SplitSizingState& s);
void from_json(const nlohmann::json& j, SplitSizingState& s);

// What the policy learned about the model this tick, besides its input.
struct SplitTick {
  double now_s = 0;
  double interval_s = 30;
  double horizon_s = 0;      // the forecast horizon: longest learned cold start + a tick
  double forecast_rps = 0;   // the model's request rate forecast at the horizon
  double observed_rps = 0;   // the model's request rate now (router view)
  bool usable = false;       // this tick's rate is evidence (not a metrics gap)
  // Per variant, in model order: seconds until each replica still starting is ready.
  std::vector<std::vector<double>> starting_ready_in_s;
};

// One request per variant of the model, in model order. A role none of whose variants
// has a fit yet holds (no_capacity_data).
std::vector<ScalingRequest> plan_split_model(const ModelTickInput& model, const SplitTick& tick,
                                             const PolicyConfig& config, SplitSizingState& state);

}  // namespace capstan
