// `throughput`: Dynamo's throughput-based (SLA) planner (seed 001, "Throughput-Based
// Scaling"; seed 003; ../shared/reference/dynamo.md 2.2-2.4). Each tick it feeds the
// variant's observed traffic (request rate, average ISL and OSL) to a load predictor,
// forecasts the next interval, and divides the predicted rate by one replica's capacity
// at the SLO to get a replica floor. One replica's capacity comes from, in order:
//   1. the variant's profile (domain/perf_model.hpp), corrected by observed / expected
//      TTFT and ITL as the SLA planner does (domain/sla_sizing.hpp);
//   2. the forward-pass wall-time regression, once ready (Dynamo G2: no correction);
//   3. the learned queue model: the EKF-tuned (alpha, beta, gamma) of
//      domain/queueing_analyzer.hpp sized at the predicted ISL/OSL, with the same
//      corrections against the model's own TTFT/ITL at the observed rate.
// Prefill and decode variants are sized per role (prefill by the prompt tokens, decode
// by the output tokens at context ISL + OSL/2); a variant serving both splits each
// replica's time between the two phases.
//
// With forward passes present and the load loop on, the floor only bounds Dynamo's
// load loop (domain/load_policy.hpp) from below: "throughput sets the floor, load acts
// above it". Without them the floor is the target. Missing or non-finite pod metrics hold
// the last good target with kMetricsMissing; pending replicas count as capacity already
// on its way (the current count includes them), and no scale-down is issued while an
// action is in flight. Replicas never go below max(1, min_replicas) (Dynamo's
// min_endpoint); scale to zero is left to domain/scale_to_zero.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "domain/ekf_tuner.hpp"
#include "domain/load_policy.hpp"
#include "domain/perf_model.hpp"
#include "domain/policy.hpp"
#include "domain/traffic_forecast.hpp"

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

struct ThroughputVariantState {
  std::optional<TrafficForecastState> forecast;  // made at the first tick
  std::optional<TunerState> tuner;               // the queue model's learned parameters
  LoadVariantState load;
  std::optional<int> last_good_target;
};

// What the throughput half concluded for one variant this tick.
struct ReplicaFloor {
  PerfSource source = PerfSource::kNone;
  TrafficSample predicted;
  double per_replica_rps = 0;
  double prefill_correction = 1;  // NaN when not computable
  double decode_correction = 1;
  int replicas = 0;
  std::string text;               // "predicted 31 req/s over 7.8 req/s per replica at the SLO ..."
};

struct ThroughputStep {
  ThroughputVariantState state;
  ScalingRequest request;
  std::optional<ReplicaFloor> floor;  // empty when metrics were missing
};

ThroughputStep throughput_step(ThroughputVariantState state, const VariantTickInput& input,
                               const ThroughputConfig& config, double now_s);

class ThroughputPolicy : public Policy {
 public:
  explicit ThroughputPolicy(ThroughputConfig config);
  std::string name() const override { return "throughput"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  ThroughputConfig config_;
  std::map<VariantKey, ThroughputVariantState> variants_;
};

// PolicyConfig's SLO and predictor (an unknown predictor name falls back to constant).
ThroughputConfig throughput_config_from(const PolicyConfig& config);
std::unique_ptr<Policy> make_throughput_policy(const PolicyConfig& config);

void to_json(nlohmann::json& j, const ThroughputVariantState& s);
void from_json(const nlohmann::json& j, ThroughputVariantState& s);

}  // namespace capstan
