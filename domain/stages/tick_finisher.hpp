// The stages after a policy's own analysis, shared by every policy but the `fixed`
// baseline (DESIGN.md "The tick, as data": optimizer -> enforcer -> decision). For every
// model, in this order:
//   1. metric guard: a variant whose data is unusable this tick holds its last good
//      target (metric_guard.hpp), with reason metrics_missing. Unusable means bad pod
//      metrics, stale ones included (older than max_sample_age_s(interval_s)), unless
//      the policy reads none; or the policy's own verdict on what it reads
//      (ModelRequests::unusable, e.g. forward passes).
//   2. step limit: every other change is cut to max_step_up / max_step_down (step_limit.hpp).
//   3. P:D band: in a model with prefill and decode variants, the summed targets of the
//      two roles are brought into pd_band by raising the lagging role (pd_ratio.hpp), a
//      replica at a time on that role's cheapest variant with room below its
//      max_replicas and within max_step_up; the raised variants' reasons (code pd_band)
//      say so with the figures.
//   4. enforcer, when FinishOptions::enforcer: the WVA enforcer's scale to/from zero,
//      pending guard, scale-down cooldown and min/max bounds (enforcer.hpp). Off for the
//      restated peers (throughput, load, hpa), whose originals pace and bound
//      themselves (Dynamo's adjustment interval, the HPA's stabilization window).
// then, across models:
//   5. GPU budget: shared by priority (gpu_budget.hpp); the targets of all models
//      together never take more GPUs than config.gpu_budget. A scale-up it cuts says so
//      (budget_limited), and names the band when the band asked for the replica.
//
// Why this order. The guard comes first so that nothing computed from bad data moves a
// variant. The band follows the step limit so that it keeps the ratio of what will
// actually be asked this tick, and its raise stays within the step, so the step limit
// holds for every stage but the enforcer's bounds and scale from zero; a band that needs
// more than one step's raise is reached over several ticks. The enforcer's bounds win
// over everything before them (its contract); its pending guard may hold a band raise
// for a variant still in flight, and the band asks again at the next tick. The budget
// is last because it is the one invariant that must hold at the end: no stage after it
// adds a replica. Within a model the budget fills a band raise before the model's other
// scale-ups, so a tight budget does not widen the ratio further; when even the raise
// does not fit, the band is left unmet and the reason says the budget blocked it.
//
// Stages 1-4 need only the model (finish_model, run by `plan`); stage 5 spans models
// (share_budget, run by `allocate`). What must be remembered between ticks is a
// ModelFinisherState per model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/decision.hpp"
#include "domain/core/history.hpp"
#include "domain/tick/tick_events.hpp"
#include "domain/stages/enforcer.hpp"
#include "domain/tick/policy_config.hpp"
#include "domain/tick/tick_input.hpp"

namespace capstan {

// What the finishing stages remember of one model between ticks.
struct ModelFinisherState {
  EnforcerState enforcer;                     // cooldown and scale-to-zero clocks
  std::map<std::string, int> last_good_target;  // by variant: what the metric guard holds to
  // Requests that reached the model per past tick, newest last, over the scale-to-zero
  // retention.
  History<std::pair<double, double>> arrivals;

  bool operator==(const ModelFinisherState&) const = default;
};

void to_json(nlohmann::json& j, const ModelFinisherState& s);
void from_json(const nlohmann::json& j, ModelFinisherState& s);

// One policy's wishes for one model: a request per variant, in the model's variant order.
struct ModelRequests {
  const ModelTickInput* model = nullptr;
  std::vector<ScalingRequest> requests;
  // The policy's own verdict per variant, in the same order: why the data it reads could
  // not be used this tick, nullopt when it could. May be empty (no verdicts); the
  // initializer lets policies without verdicts leave it out.
  std::vector<std::optional<Reason>> unusable{};
};

// Which stages run besides those every policy gets (guard, step limit, band, budget).
struct FinishOptions {
  bool enforcer = true;           // stage 4
  bool guard_pod_metrics = true;  // stage 1 checks pod metrics; off for a policy reading none
};

// What stages 1-4 make of one model's requests: the model's proposal to the fleet's
// GPU budget (stage 5).
struct ModelProposal {
  ModelKey model;
  int priority = 1;
  std::vector<Decision> decisions;    // one per variant, in the model's variant order
  std::vector<int> gpus_per_replica;  // per variant
  std::vector<int> min_replicas;      // per variant: the budget's reclaims stop there
  std::vector<bool> band_raised;      // per variant: stage 3 raised it
  std::optional<Reason> band;         // what the band asked, when it raised one

  bool operator==(const ModelProposal&) const = default;
};

// Stages 1-4 for one model; appends a StageApplied event for every target a stage
// changed.
ModelProposal finish_model(const ModelRequests& model, const PolicyConfig& config, const TickTime& time,
                           ModelFinisherState& state, std::vector<TickEvent>& events,
                           const FinishOptions& options = {});

// Stage 5: the GPU budget across models (a no-op when config.gpu_budget is 0). One
// decision per variant of every proposal, in proposal order; a StageApplied event for
// every target it cut.
std::vector<Decision> share_budget(const std::vector<ModelProposal>& proposals, const PolicyConfig& config,
                                   std::vector<TickEvent>& events);

// After the fleet's final word on a model: each variant's target, unless it held on
// missing metrics, is its last good one.
void remember_targets(ModelFinisherState& state, const std::vector<Decision>& decisions);

// What a policy that decides each variant on its own (throughput, load, hpa) asks for
// one variant.
struct VariantWish {
  ScalingRequest request;
  std::optional<Reason> unusable;  // as ModelRequests::unusable
};

}  // namespace capstan
