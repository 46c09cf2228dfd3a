// `hpa`: the Kubernetes Horizontal Pod Autoscaler as a baseline (issue 3), on one pods
// metric: concurrency per replica, the running plus waiting requests averaged over the
// ready pods that reported. It follows the HPA controller (kubernetes
// pkg/controller/podautoscaler, replica_calculator.go and horizontal.go):
//   - desired = ceil(ratio x replicas), ratio = metric / target, skipped while the ratio
//     is within the tolerance (10 %) of 1;
//   - pods not ready yet (pending) count as using 0 on a scale-up, ready pods that did not
//     report count as 0 on a scale-up and as the target on a scale-down; the ratio is
//     recomputed with them, and a recomputed ratio inside the tolerance or on the other
//     side of 1 holds -- replicas on their way are capacity on its way. It still scales
//     up while pods start when the ready pods' metric needs more than all of them at
//     target (queues on overloaded ready pods can make it so); the controller does the
//     same, so the baseline keeps it;
//   - stabilization: every raw recommendation is remembered for the window; a scale-down
//     goes only to the highest recommendation of the last 300 s (scale-up window 0 s);
//   - the default scale-up rate limit, the larger of +4 pods and +100 % per 15 s period,
//     compounded over the periods a tick spans (the controller syncs every 15 s, so a
//     30 s tick is two of its steps), then [max(1, min_replicas), max_replicas].
// The target defaults to 32 concurrent requests per replica: about what one vLLM
// replica of an 8B model on one H100 serves within a 100 ms ITL (aiconfigurator
// silicon_sample: TPOT 13.2 ms at 32, 20.1 ms at 64). Missing or non-finite metrics
// record no recommendation and make the step a kMetricsMissing hold at the current count
// with `unusable` saying why. The policy's tick goes through the shared finishing stages
// (domain/stages/tick_finisher.hpp: hold of the last good target, step limit, P:D band, GPU
// budget) but not the WVA enforcer: the stabilization window and the rate limit above
// are the HPA's own.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/policies/policy.hpp"
#include "domain/policies/policy_memories.hpp"
#include "domain/stages/tick_finisher.hpp"
#include "domain/policies/per_variant_policy.hpp"

namespace capstan {

struct HpaConfig {
  double target_concurrency_per_replica = 32;
  double tolerance = 0.1;
  double scale_down_stabilization_s = 300;
  double scale_up_stabilization_s = 0;
  int scale_up_pods_per_period = 4;
  double scale_up_percent_per_period = 100;
  double period_s = 15;  // the controller's sync period and the policy's periodSeconds
};

// Names the offending field.
std::optional<Error> validate(const HpaConfig& config);


struct HpaStep {
  HpaVariantState state;
  ScalingRequest request;
  std::optional<Reason> unusable;  // why the pod metrics could not be used
};

// max_age_s: pod samples older than this are stale (metric_guard.hpp); 0 = no age rule.
// interval_s: the time since the last step, over which the scale-up rate limit compounds
// once per whole period (at least once).
HpaStep hpa_step(HpaVariantState state, const VariantState& variant, const HpaConfig& config,
                 double now_s, double max_age_s = 0, double interval_s = 15);

// The most replicas a scale-up from `current` may reach within interval_s.
int scale_up_limit(int current, const HpaConfig& config, double interval_s);


// target_concurrency_per_replica and scale_down_cooldown_s (the stabilization window).
HpaConfig hpa_config_from(const PolicyConfig& config);
// `config`: the policy's own knobs; without, they are derived from the PolicyConfig of
// each tick (hpa_config_from), so a configuration reload applies at the next tick.
std::shared_ptr<const TickPolicy> hpa_policy(std::optional<HpaConfig> config = std::nullopt);

// The policy over a fleet's states (policy.hpp); `finishing`: the GPU budget, step
// limit and P:D band of the shared finishing stages.
class HpaPolicy : public DrivenPolicy {
 public:
  explicit HpaPolicy(HpaConfig config, PolicyConfig finishing = {})
      : DrivenPolicy(hpa_policy(std::move(config)), std::move(finishing)) {}
};


}  // namespace capstan
