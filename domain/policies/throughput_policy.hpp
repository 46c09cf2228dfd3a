// `throughput`: Dynamo's throughput-based (SLA) planner (seed 001, "Throughput-Based
// Scaling"; seed 003; ../shared/reference/dynamo.md 2.2-2.4). Each tick it feeds the
// variant's observed traffic (request rate, average ISL and OSL) to a load predictor,
// forecasts the next interval (ARIMA by default, as Dynamo's; PolicyConfig::predictor
// picks another), and divides
// the predicted rate by one replica's capacity at the SLO to get a replica floor. One
// replica's capacity comes from, in order:
//   1. the variant's profile (domain/model/perf_model.hpp), corrected by observed / expected
//      TTFT and ITL as the SLA planner does (domain/model/sla_sizing.hpp);
//   2. the forward-pass wall-time regression, once ready (Dynamo G2: no correction);
//   3. the learned queue model: the EKF-tuned (alpha, beta, gamma) of
//      domain/model/queueing_analyzer.hpp sized at the predicted ISL/OSL, with the same
//      corrections against the model's own TTFT/ITL at the observed rate.
// Prefill and decode variants are sized per role (prefill by the prompt tokens, decode
// by the output tokens at context ISL + OSL/2); a variant serving both splits each
// replica's time between the two phases.
//
// With forward passes present and the load loop on, the floor only bounds Dynamo's
// load loop (domain/policies/load_policy.hpp) from below: "throughput sets the floor, load acts
// above it". Without them the floor is the target. Pending and loading replicas count as
// capacity already on its way: the floor is a replica count compared with the current
// count, which includes them. And no change at all is issued while an action is in
// flight (replicas pending or loading, or the last target not yet applied), as Dynamo's
// connectors write no decision until the previous one has landed (reference 4.1-4.2:
// the DGD must be Ready; a virtual decision must be acknowledged): while replicas load,
// the ready ones are overloaded, and their latency would otherwise inflate the
// correction factors into a second scale-up for demand the loading replicas will serve.
// Replicas never go below max(1, min_replicas) (Dynamo's min_endpoint); the policy does
// not scale to zero.
//
// Missing or non-finite pod metrics (or, for the load loop, forward passes) make the
// step a kMetricsMissing hold at the current count with `unusable` saying why; the
// policy's tick goes through the shared finishing stages (domain/stages/tick_finisher.hpp:
// hold of the last good target, step limit, P:D band, GPU budget) but not the WVA
// enforcer, since Dynamo paces and bounds its own adjustments.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "domain/model/ekf_tuner.hpp"
#include "domain/policies/load_policy.hpp"
#include "domain/model/perf_model.hpp"
#include "domain/policies/policy.hpp"
#include "domain/policies/policy_memories.hpp"
#include "domain/stages/tick_finisher.hpp"
#include "domain/policies/per_variant_policy.hpp"
#include "domain/forecast/traffic_forecast.hpp"

namespace capstan {

// Either side may be absent; a role needs its side (both needs both).
struct VariantProfile {
  std::optional<PrefillProfile> prefill;
  std::optional<DecodeProfile> decode;
};

struct ThroughputConfig {
  SloTargets slo{2000, 100};
  PredictorKind predictor = PredictorKind::kConstant;
  bool correction = true;                          // Dynamo --no-correction turns it off
  std::map<std::string, VariantProfile> profiles;  // by variant name
  bool load_loop = true;                           // run the load loop above the floor
  LoadConfig load;                                 // its SLO follows `slo`
  TunerConfig tuner;
};

enum class PerfSource { kNone, kProfile, kRegression, kQueueModel };
const char* to_string(PerfSource source);


// What the throughput half concluded for one variant this tick.
struct ReplicaFloor {
  PerfSource source = PerfSource::kNone;
  TrafficSample predicted;
  double per_replica_rps = 0;
  double prefill_correction = 1;  // NaN when not computable
  double decode_correction = 1;
  int replicas = 0;
  Reason why;                     // "predicted 31 req/s over 7.8 req/s per replica at the SLO ..."
};

struct ThroughputStep {
  ThroughputVariantState state;
  ScalingRequest request;
  std::optional<Reason> unusable;       // why the variant's data could not be used
  std::optional<ReplicaFloor> floor;    // empty when metrics were missing
};

// max_age_s: pod samples older than this are stale (metric_guard.hpp); 0 = no age rule.
ThroughputStep throughput_step(ThroughputVariantState state, const VariantTickInput& input,
                               const ThroughputConfig& config, double now_s, double max_age_s = 0);


// PolicyConfig's SLO and predictor (an unknown predictor name falls back to constant).
ThroughputConfig throughput_config_from(const PolicyConfig& config);
// `config`: the policy's own knobs; without, they are derived from the PolicyConfig of
// each tick (throughput_config_from), so a configuration reload applies at the next tick.
std::shared_ptr<const TickPolicy> throughput_policy(std::optional<ThroughputConfig> config = std::nullopt);

// The policy over a fleet's states (policy.hpp); `finishing`: the GPU budget, step
// limit and P:D band of the shared finishing stages.
class ThroughputPolicy : public DrivenPolicy {
 public:
  explicit ThroughputPolicy(ThroughputConfig config, PolicyConfig finishing = {})
      : DrivenPolicy(throughput_policy(std::move(config)), std::move(finishing)) {}
};


}  // namespace capstan
