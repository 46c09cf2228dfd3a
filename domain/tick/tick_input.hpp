// What one tick sees (DESIGN.md "The tick, as data"): per model, per variant the
// observed state and per-pod metrics, the forward passes of its replicas and the
// start-up times of replicas that became ready; the router's view of the model. Plain
// values; the recorded form is domain/codec/tick_input_codec.hpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

// Whether a tick reads a model's forward passes (TickPolicy::reads_forward_passes), for
// whoever builds its input: the passes of a model answered false are never built, rather
// than built and dropped by the tick (they are most of an observation's bytes, and a
// tick's inputs live until it ends). Asked of the model with its variants but before
// their passes are filled in. Empty: every model's are read.
using ReadsForwardPasses = std::function<bool(const ModelTickInput&)>;

// When a tick runs: time is an input, never read inside domain/.
struct TickTime {
  double now_s = 0;
  double interval_s = 30;  // since the previous tick
};

struct TickInput {
  double now_s = 0;
  double interval_s = 30;  // time since the previous tick
  std::vector<ModelTickInput> models;
};

}  // namespace capstan
