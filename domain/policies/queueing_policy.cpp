#include "domain/policies/queueing_policy.hpp"

#include <nlohmann/json.hpp>

#include "domain/model/capacity_signal.hpp"
#include "domain/stages/cost_aware_optimizer.hpp"
#include "domain/core/format.hpp"
#include "domain/codec/json.hpp"
#include "domain/model/queueing_analyzer.hpp"

namespace capstan {

std::vector<Decision> QueueingPolicy::tick(const TickInput& input) {
  QueueingAnalyzerConfig ac;
  ac.slo = {config_.slo_multiplier, config_.slo.ttft_ms, config_.slo.itl_ms};
  std::vector<ModelRequests> wishes;
  for (const ModelTickInput& m : input.models) {
    std::vector<VariantInput> inputs;
    for (const VariantTickInput& v : m.variants) {
      VariantInput in{v.state.spec, v.state.pods, v.state.current_replicas, v.state.pending_replicas, std::nullopt};
      if (auto it = tuners_.find(variant_id_key(m.model, v.state.spec.name)); it != tuners_.end()) in.tuner = it->second;
      inputs.push_back(std::move(in));
    }
    ModelRequests mr{&m, {}};
    auto analysis = analyze_model(m.model, inputs, ac);
    if (!analysis || analysis->error) {
      const std::string why = analysis ? analysis->error->message : analysis.error().message;
      for (const VariantTickInput& v : m.variants) {
        mr.requests.push_back(hold(v.state.spec.name, v.state.current_replicas, ReasonCode::kNoCapacityData,
                                   "hold at " + std::to_string(v.state.current_replicas) + ": " + why));
      }
    }
    if (analysis) {
      for (const VariantAnalysis& va : analysis->variants) {
        if (va.tuner) tuners_[variant_id_key(m.model, va.capacity.variant)] = *va.tuner;
      }
    }
    if (analysis && !analysis->error) {
      CapacitySignal signal;
      signal.unit = "req/s";
      signal.supply = analysis->total_supply_rps;
      signal.demand = analysis->total_demand_rps;
      signal.required = analysis->required_rps;
      signal.spare = analysis->spare_rps;
      for (size_t i = 0; i < m.variants.size(); ++i) {
        const VariantSpec& spec = m.variants[i].state.spec;
        const VariantCapacity& c = analysis->variants[i].capacity;
        signal.variants.push_back({spec.name, c.per_replica_capacity_rps, spec.cost_per_replica,
                                   c.current_replicas, c.pending_replicas, spec.min_replicas,
                                   spec.max_replicas, spec.gpus_per_replica});
      }
      mr.requests = optimize_cost_aware(signal);
      for (size_t i = 0; i < mr.requests.size(); ++i) {
        const VariantCapacity& c = analysis->variants[i].capacity;
        if (c.status == CapacityStatus::kOk) {
          mr.requests[i].reason.text += " (lambda* " + fmt_num(c.per_replica_capacity_rps) + " req/s per replica at TTFT " +
                                        fmt_num(analysis->slo.targets.ttft_ms) + " ms / ITL " +
                                        fmt_num(analysis->slo.targets.itl_ms) + " ms)";
        }
      }
    }
    wishes.push_back(std::move(mr));
  }
  return finish_tick(wishes, config_, input.now_s, input.interval_s, finisher_);
}

nlohmann::json QueueingPolicy::save_state() const {
  return {{"tuners", tuners_}, {"finisher", finisher_}};
}

Result<bool> QueueingPolicy::restore_state(const nlohmann::json& state) {
  try {
    auto tuners = state.at("tuners").get<std::map<std::string, TunerState>>();
    auto finisher = state.at("finisher").get<FinisherState>();
    tuners_ = std::move(tuners);
    finisher_ = std::move(finisher);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("queueing policy state: ") + e.what());
  }
  return true;
}

std::unique_ptr<Policy> make_queueing_policy(const PolicyConfig& config) {
  return std::make_unique<QueueingPolicy>(config);
}

}  // namespace capstan
