// `load`: Dynamo's load-based loop (seed 001, "Load-Based Scaling" / "Scaling
// Decisions"; ../shared/reference/dynamo.md 3.1-3.3). Each variant's forward passes feed
// an online regression of iteration wall time (domain/model/forward_pass_regression.hpp: 1D on
// prefill tokens for a prefill role, 1D on decode KV tokens for decode, 2D for a variant
// serving both). From the fit and each engine's latest iteration it estimates the TTFT
// (prefill) or ITL (decode) the next request would see on that engine, and:
//   - scales up by one when every engine's estimate exceeds the SLO target (a variant
//     serving both: every TTFT, or every ITL);
//   - scales down by one when there are two or more ready engines and one fewer would
//     still meet the SLA (the consolidation check of Dynamo PR #9294, reference 3.3,
//     which replaced "every estimate below target x sensitivity" against 2 <-> 1
//     flapping): each engine's queue -- decode: its scheduled and queued KV; a variant
//     serving both: also its queued prefill -- grows by N / (N - 1); the TTFT that adds
//     must stay within (target - the TTFT of an empty queue) x sensitivity, and the next
//     ITL below target x sensitivity, on every engine;
//   - otherwise holds. Dynamo also refuses when the consolidated KV exceeds an engine's
//     KV capacity; forward passes do not carry it here, so the ITL test alone decides.
// A 0 target leaves its metric out: it never triggers a scale-up and never blocks a
// scale-down.
// One step per adjustment interval, none while a previous action is in flight (pending
// guard, Dynamo's scaling_in_progress: pending and loading replicas are capacity on its
// way, so the loop does not step again for the load they will take, and not even the
// floor moves then), never below a floor (the throughput policy's, or min_replicas /
// one replica).
//
// Missing, non-finite or partial forward passes (fewer engines reporting than are ready)
// make the step a kMetricsMissing hold at the current count with `unusable` saying why.
// Engines are told apart by ForwardPassSample::pod; when no sample names its pod the
// variant is one engine. The policy's tick goes through the shared finishing stages
// (domain/stages/tick_finisher.hpp: hold of the last good target, step limit, P:D band, GPU
// budget) but not the WVA enforcer: the loop paces and bounds itself. It reads no pod
// metrics, so only its own verdict on the forward passes triggers the hold.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/model/forward_pass_regression.hpp"
#include "domain/policies/policy.hpp"
#include "domain/policies/policy_memories.hpp"
#include "domain/stages/tick_finisher.hpp"
#include "domain/policies/per_variant_policy.hpp"

namespace capstan {

struct LoadConfig {
  SloTargets slo{2000, 100};
  double scale_down_sensitivity = 0.8;  // Dynamo load_scaling_down_sensitivity 80 %
  double adjustment_interval_s = 5;     // Dynamo load_adjustment_interval
  double max_batched_tokens = 2048;     // the engines' chunked-prefill size
  RegressionConfig regression;
};

// Names the offending field.
std::optional<Error> validate(const LoadConfig& config);


// Per-engine latency estimates of one tick.
struct EngineEstimate {
  std::string pod;
  double ttft_ms = 0;  // prefill or both
  double itl_ms = 0;   // decode or both
  // The consolidation check (Dynamo PR #9294): the same engine with one fewer beside it,
  // its queue (decode: its KV) grown by N / (N - 1). Set when N >= 2.
  double ttft_own_ms = 0;   // TTFT of a request meeting an empty queue
  double ttft_post_ms = 0;  // TTFT with the consolidated queue
  double itl_post_ms = 0;   // next ITL with the consolidated KV
};

struct LoadStep {
  LoadVariantState state;
  ScalingRequest request;
  std::optional<Reason> unusable;         // why the forward passes could not be used
  std::vector<EngineEstimate> estimates;  // empty when the loop did not get that far
  std::optional<WallTimeFit> fit;
};

// Folds the variant's forward passes into its regression and decides. floor_replicas is
// the lowest target the loop may set (it raises a lower current count to it).
LoadStep load_step(LoadVariantState state, const VariantTickInput& input, const LoadConfig& config,
                   double now_s, int floor_replicas);

// The loop alone: floor = max(1, min_replicas).

// PolicyConfig's SLO; everything else at Dynamo's defaults.
LoadConfig load_config_from(const PolicyConfig& config);
// `config`: the policy's own knobs; without, they are derived from the PolicyConfig of
// each tick (load_config_from), so a configuration reload applies at the next tick.
std::shared_ptr<const TickPolicy> load_policy(std::optional<LoadConfig> config = std::nullopt);

// The policy over a fleet's states (policy.hpp); `finishing`: the GPU budget, step
// limit and P:D band of the shared finishing stages.
class LoadPolicy : public DrivenPolicy {
 public:
  explicit LoadPolicy(LoadConfig config, PolicyConfig finishing = {})
      : DrivenPolicy(load_policy(std::move(config)), std::move(finishing)) {}
};


}  // namespace capstan
