// `load`: Dynamo's load-based loop (seed 001, "Load-Based Scaling" / "Scaling
// Decisions"; ../shared/reference/dynamo.md 3.1-3.3). Each variant's forward passes feed
// an online regression of iteration wall time (domain/model/forward_pass_regression.hpp: 1D on
// prefill tokens for a prefill role, 1D on decode KV tokens for decode, 2D for a variant
// serving both). From the fit and each engine's latest iteration it estimates the TTFT
// (prefill) or ITL (decode) the next request would see on that engine, and:
//   - scales up by one when every engine's estimate exceeds the SLO target (a variant
//     serving both: every TTFT, or every ITL);
//   - scales down by one when there are two or more ready engines and every estimate is
//     below target x scale_down_sensitivity (both: every TTFT and every ITL);
//   - otherwise holds.
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
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/model/forward_pass_regression.hpp"
#include "domain/policies/policy.hpp"
#include "domain/stages/tick_finisher.hpp"

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

struct LoadVariantState {
  RegressionState regression;
  std::optional<double> last_change_s;   // when the loop last moved the target

  bool operator==(const LoadVariantState&) const = default;
};

// Per-engine latency estimates of one tick.
struct EngineEstimate {
  std::string pod;
  double ttft_ms = 0;  // prefill or both
  double itl_ms = 0;   // decode or both
};

struct LoadStep {
  LoadVariantState state;
  ScalingRequest request;
  std::optional<std::string> unusable;    // why the forward passes could not be used
  std::vector<EngineEstimate> estimates;  // empty when the loop did not get that far
  std::optional<WallTimeFit> fit;
};

// Folds the variant's forward passes into its regression and decides. floor_replicas is
// the lowest target the loop may set (it raises a lower current count to it).
LoadStep load_step(LoadVariantState state, const VariantTickInput& input, const LoadConfig& config,
                   double now_s, int floor_replicas);

// The loop alone: floor = max(1, min_replicas).
class LoadPolicy : public Policy {
 public:
  // `finishing`: the GPU budget, step limit and P:D band of the shared finishing stages.
  explicit LoadPolicy(LoadConfig config, PolicyConfig finishing = {})
      : config_(std::move(config)), finishing_(std::move(finishing)) {}
  std::string name() const override { return "load"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  LoadConfig config_;
  PolicyConfig finishing_;
  std::map<VariantKey, LoadVariantState> variants_;
  FinisherState finisher_;
};

// PolicyConfig's SLO; everything else at Dynamo's defaults.
LoadConfig load_config_from(const PolicyConfig& config);
std::unique_ptr<Policy> make_load_policy(const PolicyConfig& config);

void to_json(nlohmann::json& j, const LoadVariantState& s);
void from_json(const nlohmann::json& j, LoadVariantState& s);

}  // namespace capstan
