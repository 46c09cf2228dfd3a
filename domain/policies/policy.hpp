// The one interface every scaling policy implements, and what it sees at a tick
// (DESIGN.md "The tick, as data"). The daemon, `replay` and `simulate` all drive a
// policy through tick(); none has its own copy of the loop.
//
// A policy's state between ticks (learned parameters, forecaster state, cooldown
// clocks, last decisions) is explicit: save_state() returns all of it as JSON and
// restore_state() puts it back, so a restart or a replay resumes bit for bit. Time is
// an input (TickInput::now_s); nothing here reads a clock, a file or a random source.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/decision.hpp"
#include "domain/stages/pd_ratio.hpp"
#include "domain/model/queue_model.hpp"
#include "domain/core/result.hpp"
#include "domain/core/types.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

// One scheduler iteration of one replica (Dynamo's forward-pass metrics), for policies
// that regress iteration time on the work scheduled.
struct ForwardPassSample {
  double wall_time_ms = 0;
  double scheduled_prefill_tokens = 0;
  double decode_kv_tokens = 0;
  double queued_requests = 0;
  double running_requests = 0;
  // Added for the Dynamo load loop; the defaults mean "not reported".
  std::string pod;                        // which replica ran it; "" = unknown
  double scheduled_prefill_requests = 0;  // 0 = unknown, one request when tokens > 0
  double queued_prefill_tokens = 0;       // 0 with queued_requests > 0: estimated
  double queued_decode_kv_tokens = 0;
};

struct VariantTickInput {
  VariantState state;  // spec, current/pending/desired replicas, per-pod metrics
  std::vector<ForwardPassSample> forward_passes;  // recent iterations, all replicas
  // Start-up times (creation to ready) of the replicas that became ready since the
  // previous tick; policies learn the variant's cold start from these.
  std::vector<double> new_cold_starts_s;
  double configured_cold_start_s = 0;  // the prior, from configuration
};

struct ModelTickInput {
  ModelKey model;
  std::vector<VariantTickInput> variants;
  double upstream_queue = 0;   // requests held by the router (EPP flow-control queue)
  // Prefilled requests waiting at the router for a decode replica (prefill/decode
  // splits only; their KV is still held on a prefill replica): the decode role's
  // backlog besides its pods' own waiting requests.
  double decode_queue = 0;
  double arrival_rate_rps = 0; // requests that reached the model this window, router view
  int priority = 1;            // for shared GPU budgets: higher is served first
};

struct TickInput {
  double now_s = 0;
  double interval_s = 30;  // time since the previous tick
  std::vector<ModelTickInput> models;
};

// Knobs common to policies; each policy reads the ones it needs and ignores the rest.
struct PolicyConfig {
  SloTargets slo{2000, 100};       // explicit TTFT / ITL targets, ms
  double slo_multiplier = 3.0;     // when the SLO is to be derived (queueing family)
  int gpu_budget = 0;              // total GPUs across models; 0 = unlimited
  double scale_to_zero_retention_s = 0;  // 0 = scale to zero off
  double scale_down_cooldown_s = 300;
  int max_step_up = 0;             // replicas per tick, 0 = unlimited
  int max_step_down = 0;
  RatioBand pd_band;               // prefill:decode replicas per model; {0, 0} = off
  std::string predictor = "holt";  // forecasting policies
  // The share of requests the SLO lets miss its targets (1 - the SLO's attainment; set
  // so by scenarios and `simulate`): hybrid bounds P(TTFT > target) and, by the pods'
  // per-request ITL histograms, P(ITL > target) by it; erlang P(wait > TTFT target).
  double tail_probability = 0.05;
  // How long clients wait for a response before they give up (the gateway's or
  // client's timeout), 0 = unknown: hybrid drains no backlog longer than they wait.
  double client_timeout_s = 0;
  double target_concurrency_per_replica = 32;  // hpa: running + waiting requests
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // One decision per variant of every model in the input, in input order.
  virtual std::vector<Decision> tick(const TickInput& input) = 0;
  virtual nlohmann::json save_state() const = 0;
  virtual Result<bool> restore_state(const nlohmann::json& state) = 0;
};

using PolicyFactory = std::unique_ptr<Policy> (*)(const PolicyConfig&);

struct PolicyInfo {
  std::string name;
  std::string description;
  PolicyFactory make;
};

// Every registered policy, in a stable order (policy_registry.cpp).
const std::vector<PolicyInfo>& registered_policies();

// Errors naming the unknown policy and listing the known ones.
Result<std::unique_ptr<Policy>> make_policy(const std::string& name, const PolicyConfig& config);

}  // namespace capstan
