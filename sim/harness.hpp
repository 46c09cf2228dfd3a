// The policy harness: drives one capstan::Policy over simulated fleets in virtual time,
// the same tick() the daemon calls (DESIGN.md "The tick, as data"). Every tick_s it
// advances each model's Simulation to the same time, turns the observations into ONE
// TickInput (a ModelTickInput per model, with its priority for a shared GPU budget),
// calls the policy and applies each Decision to the simulation of the model it names
// with set_desired(); actuation then takes the variant's pending + cold-start time in
// the simulator, as it would on a cluster. It records a bounded per-tick series (one
// point per tick) for the report.
//
// No policy is special-cased: a new policy in the registry runs here unchanged. A
// policy that throws is not called again: the error is kept in the run (the fleet
// keeps its last targets) and the rest of the traces is still simulated, so the row
// shows what that failure cost. Same seed and inputs -> identical run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "domain/policies/policy.hpp"
#include "domain/tick/tick_events.hpp"
#include "domain/core/result.hpp"
#include "sim/fleet_config.hpp"
#include "sim/run_report.hpp"
#include "sim/simulation.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

// What the policy sees of pod metrics inside a MetricsGap.
enum class MetricsGapKind {
  kMissing,  // no pods and no forward passes (Prometheus is down)
  kNaN,      // the pods are there, every value NaN (a scrape returns garbage)
  kStale,    // the pods as they were at the last tick before the gap, each value
             // unchanged and PodMetrics::sample_age_s = now - that tick; no forward
             // passes (nothing new ran as far as the policy can tell)
};

// "missing", "nan", "stale".
const char* to_string(MetricsGapKind kind);

// A window in which the policy sees no usable pod metrics (a Prometheus outage, a
// scrape that returns garbage, or one that serves the same samples again). Only pod
// metrics and forward passes change: replica counts, start-up times and the router's
// arrival rate and queue stay live, and the fleet itself runs on.
struct MetricsGap {
  double from_s = 0;  // ticks with from_s <= now_s < to_s are affected
  double to_s = 0;
  MetricsGapKind kind = MetricsGapKind::kMissing;
};

struct HarnessOptions {
  double tick_s = 30;
  SloTargets slo;
  std::uint64_t seed = 1;  // model 0's simulation; the others' are derived (model_seed)
  // After the last arrival, stop if the fleet has not drained within this time
  // (requests stuck upstream with no replica and no client timeout).
  double drain_limit_s = 3600;
  std::string model_namespace = "sim";
  // Keep ticking (policy included) until this time even when the fleet is idle and
  // the trace is over, e.g. to watch a fleet release replicas after traffic stops.
  double min_duration_s = 0;
  std::optional<MetricsGap> metrics_gap;  // default: metrics always present
  // Called after each tick the policy decided, with exactly what it saw and what it
  // decided (`simulate --record` writes them; the parity tests replay them).
  using TickObserver = std::function<void(const TickInput&, const std::vector<Decision>&)>;
  TickObserver on_tick;
};

// One model of a run: its fleet, the requests it receives, and its priority when a
// GPU budget is shared (ModelTickInput::priority, higher first).
struct ModelInput {
  FleetConfig fleet;
  std::unique_ptr<TraceSource> trace;
  int priority = 1;
};

// One tick of the run, for the plots and the scenario checks. Per-variant vectors
// follow PolicyRun::variants. Latencies are over the requests of every model that
// completed during the tick (exact nearest-rank; 0 when none completed).
struct TickRecord {
  double time_s = 0;
  double arrival_rate_rps = 0;  // all models
  std::vector<int> replicas;    // per variant: pending + loading + ready (not gone, not draining)
  std::vector<int> ready;       // per variant
  std::vector<int> draining;    // per variant: released, finishing their requests
  long long completed = 0;
  long long failed = 0;
  double ttft_p50_ms = 0, ttft_p99_ms = 0;
  double itl_p50_ms = 0, itl_p99_ms = 0;
  // The requests that arrived in this tick's window, (time_s - tick, time_s], however
  // late they finished: what a client sending at that time got. Filled at the end of
  // the run; a request still unfinished when the run stopped counts as unfinished.
  long long arrived = 0, arrived_failed = 0, arrived_unfinished = 0;
  long long arrived_met_slo = 0;  // finished within both SLO targets
  double arrived_ttft_p99_ms = 0;
  // Requests waiting at the tick: the router's upstream and decode queues and the
  // servers' waiting queues (all models), as the fleet holds them, whatever a policy sees.
  long long queued = 0;
  std::vector<Decision> decisions;  // as returned by the policy this tick
  // The demand forecasts the policy made this tick (its ForecastMade events; a policy
  // that is not a DrivenPolicy, or that does not forecast, leaves it empty).
  std::vector<ForecastMade> forecasts;
};

// One model's part of a run.
struct ModelRun {
  std::string model;              // FleetConfig::model: the model_id its decisions carry
  int priority = 1;
  std::size_t first_variant = 0;  // its variants: PolicyRun::variants[first_variant, +variant_count)
  std::size_t variant_count = 0;
  RunReport report;               // its own requests and fleet; scale actions by fleet variant name
};

struct PolicyRun {
  std::string policy;
  // Every variant of the run: model by model in input order, each in fleet order. With
  // one model the fleet's variant names; with several "<model>/<variant>", so that
  // names are unique across models.
  std::vector<std::string> variants;
  std::vector<std::size_t> variant_model;  // per variant: its index in `models`
  std::vector<ModelRun> models;
  // Over all models: counts, replica-/GPU-hours, cost and preemptions summed; latency
  // percentiles and SLO attainment over every request; scale actions named as in
  // `variants`. With one model, exactly that model's report.
  RunReport report;
  std::vector<TickRecord> series;
  std::string error;  // the first error of the policy (or of applying a decision); empty if none
};

// The index in run.variants of the variant `decision` is for; run.variants.size() when
// no model of the run has that model_id and variant.
std::size_t variant_index(const PolicyRun& run, const Decision& decision);

// The seed of model `model`'s simulation (and of its generated workload) in a run
// seeded `run_seed`: model 0 keeps the run seed, so a one-model run is unchanged.
std::uint64_t model_seed(std::uint64_t run_seed, std::size_t model);

// The policy's view of one observation of one model. `desired` is the last target sent
// per variant (fleet order), nullopt before the first. The variants' forward passes only
// when `reads_forward_passes` says the model's are read (empty: always).
TickInput to_tick_input(const Observation& observation, const FleetConfig& fleet,
                        const std::vector<std::optional<int>>& desired, double interval_s,
                        const std::string& model_namespace, const ReadsForwardPasses& reads_forward_passes = {});

// Drops (or NaNs) the pod metrics and forward passes of every variant of `input`.
void blank_metrics(TickInput& input, bool nan);

// The stale gap: every variant of `input` gets the pods the same model and variant (by
// position) had in `frozen`, each aged by input.now_s - frozen.now_s, and no forward
// passes. A variant `frozen` lacks gets no pods.
void freeze_metrics(TickInput& input, const TickInput& frozen);

// Several models under one policy. Errors when `models` is empty, two fleets name the
// same model, a priority is < 1, tick_s <= 0, or a trace is malformed (the message
// names the file and line).
Result<PolicyRun> run_policy(Policy& policy, std::vector<ModelInput> models, const HarnessOptions& options);

// One model at priority 1.
Result<PolicyRun> run_policy(Policy& policy, const FleetConfig& fleet, std::unique_ptr<TraceSource> trace,
                             const HarnessOptions& options);

}  // namespace capstan::sim
