// `erlang`: Inferscale's pipeline (seed 004) as a policy. Holt forecast of the request
// rate (alpha 0.3, beta = alpha / 2) at the learned cold-start horizon -> the Erlang-C
// M/M/k replica count keeping P(wait > TTFT target) under the tail probability, each
// replica a server whose rate is its EKF-learned lambda* at the SLO -> the warm-pool
// optimizer, J(k) = GPU cost x k + SLA penalty x P(violation), which may keep extra
// replicas warm -> stability controls (scale-down cooldown) in the shared finisher.
// The replicas go to the variant with the lowest cost per unit of capacity; the other
// variants keep theirs and count toward k.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "domain/forecast/holt_predictor.hpp"
#include "domain/model/model_learning.hpp"
#include "domain/policies/policy.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {

class ErlangPolicy : public Policy {
 public:
  explicit ErlangPolicy(const PolicyConfig& config) : config_(config) {}
  std::string name() const override { return "erlang"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

  // SLA penalty per hour, as a multiple of a replica's hourly cost (Inferscale's
  // sla_penalty_per_hour is a per-deployment setting; capstan scales it to the variant).
  static constexpr double kPenaltyPerReplicaCost = 20;

 private:
  std::vector<ScalingRequest> plan_model(const ModelTickInput& model, double interval_s);

  PolicyConfig config_;
  SaturationConfig saturation_;
  LearnedModels learned_;
  std::map<std::string, HoltState> forecasts_;  // by model key
  FinisherState finisher_;
};

std::unique_ptr<Policy> make_erlang_policy(const PolicyConfig& config);

}  // namespace capstan
