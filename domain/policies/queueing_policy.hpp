// `queueing`: llm-d WVA's queueing-model path as a policy (seed 000; seed 002
// "Pipeline stages"). Per model: the queueing analyzer learns each variant's
// (alpha, beta, gamma) and sizes lambda* at the SLO; the cost-aware optimizer adds the
// missing capacity on the most cost-efficient variant and releases spare capacity from
// the most expensive; the shared finisher applies the enforcer and the GPU budget. It
// reacts to the current demand only: no forecast, no queue term (that is `hybrid`).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "domain/model/ekf_tuner.hpp"
#include "domain/policies/policy.hpp"
#include "domain/stages/tick_finisher.hpp"

namespace capstan {

class QueueingPolicy : public Policy {
 public:
  explicit QueueingPolicy(const PolicyConfig& config) : config_(config) {}
  std::string name() const override { return "queueing"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  PolicyConfig config_;
  std::map<std::string, TunerState> tuners_;  // by "<ns>/<model_id>/<variant>"
  FinisherState finisher_;
};

std::unique_ptr<Policy> make_queueing_policy(const PolicyConfig& config);

}  // namespace capstan
