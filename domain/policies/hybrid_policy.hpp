// `hybrid`, capstan's default policy (docs/policies.md has the reasoning and formulas):
//   demand  D = max(forecast of the request rate at the variant's cold-start horizon,
//                   observed rate + the backlog still waiting when new replicas can be
//                   ready, at most what clients wait for (backlog_projection.hpp) /
//                   drain time)
//   capacity per replica c_v = min(lambda* at the SLO, the rate keeping
//                   P(TTFT > target) <= p, and, where pods report their requests' own
//                   ITLs, the rate keeping P(ITL > target) <= p by the measured spread
//                   (itl_tail.hpp)) from the EKF-learned queue model, never below what
//                   the replicas serve now well inside the SLO (served_capacity.hpp)
//   supply  = sum over variants of c_v x replicas, starting ones included
// Missing capacity goes to the most cost-efficient variant; spare capacity (beyond a
// 15% margin over the peak of this tick's demand and the request rates observed over
// the last scale-down cooldown) comes off the
// least cost-efficient one; the shared finisher then applies the
// metric guard, step limit, enforcer and GPU budget. A model with nothing learned yet
// falls back to WVA's saturation rule, which needs no parameters.
//
// A model split into prefill and decode variants is sized per role instead
// (role_sizing.hpp): each role carries the model's whole request rate, from the same
// forecast, with its own backlog and a per-replica capacity learned from its own
// forward passes.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>

#include "domain/forecast/demand_memory.hpp"
#include "domain/model/itl_tail.hpp"
#include "domain/model/model_learning.hpp"
#include "domain/policies/policy.hpp"
#include "domain/policies/role_sizing.hpp"
#include "domain/model/saturation.hpp"
#include "domain/stages/tick_finisher.hpp"
#include "domain/forecast/traffic_forecast.hpp"

namespace capstan {

class HybridPolicy : public Policy {
 public:
  explicit HybridPolicy(const PolicyConfig& config) : config_(config) {}
  std::string name() const override { return "hybrid"; }
  std::vector<Decision> tick(const TickInput& input) override;
  nlohmann::json save_state() const override;
  Result<bool> restore_state(const nlohmann::json& state) override;

 private:
  std::vector<ScalingRequest> plan_model(const ModelTickInput& model, double now_s, double interval_s);
  std::vector<ScalingRequest> plan_split(const ModelTickInput& model, const ModelObservation& seen,
                                         double forecast_rps, double now_s, double interval_s);
  // Seconds until each replica of a variant still starting is ready, by the learned cold start.
  std::vector<double> starting_ready_in_s(const std::string& key, const VariantState& v, double now_s,
                                          double interval_s);

  PolicyConfig config_;
  SaturationConfig saturation_;
  LearnedModels learned_;
  std::map<std::string, TrafficForecastState> forecasts_;  // by model key
  // Recent (time, observed request rate) per model: capacity is released only below
  // the peak of the last scale-down cooldown and this tick's demand.
  std::map<std::string, DemandHistory> recent_demand_;
  // Recent per-replica capacity estimates per variant: the median sizes the fleet, so
  // one tick's drifting fit does not move replicas.
  std::map<std::string, std::deque<double>> recent_capacity_;
  // The per-request ITL evidence of recent windows per variant (itl_tail.hpp), oldest
  // first, at most kItlWindows.
  std::map<std::string, std::deque<std::vector<ItlTailPoint>>> itl_windows_;
  // When each replica still starting was asked for, oldest first, per variant.
  std::map<std::string, std::deque<double>> starting_since_;
  SplitSizingState split_;  // models split into prefill and decode variants
  FinisherState finisher_;
};

std::unique_ptr<Policy> make_hybrid_policy(const PolicyConfig& config);

}  // namespace capstan
