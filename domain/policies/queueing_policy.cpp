#include "domain/policies/queueing_policy.hpp"

#include "domain/core/format.hpp"
#include "domain/model/model_learning.hpp"
#include "domain/model/queueing_analyzer.hpp"
#include "domain/model/capacity_signal.hpp"
#include "domain/stages/cost_aware_optimizer.hpp"

namespace capstan {
namespace {

class Queueing final : public TickPolicy {
 public:
  std::string name() const override { return "queueing"; }

  // WVA learns from every pod it scrapes, stale or not.
  Learned learn(VariantMemory memory, const ModelKey& model, const VariantTickInput& input, const PolicyConfig&,
                const TickTime& time) const override {
    return learn_variant(std::move(memory), model, input, time, {.skip_unusable_pods = false, .cold_start = false, .bootstrap_without_queue = false});
  }

  Planned plan(ModelState state, const ModelTickInput& m, std::span<const VariantView> views,
               const PolicyConfig& config, const TickTime& time) const override {
    QueueingAnalyzerConfig ac;
    ac.slo = {config.slo_multiplier, config.slo};
    std::vector<VariantInput> inputs;
    std::vector<TunerReport> reports;
    for (size_t i = 0; i < m.variants.size(); ++i) {
      const VariantState& v = m.variants[i].state;
      inputs.push_back({v.spec, v.pods, v.current_replicas, v.pending_replicas, views[i].learned.tuner});
      reports.push_back(views[i].tuning);
    }
    Planned out;
    ModelRequests mr{&m, {}};
    auto analysis = analyze_tuned(m.model, inputs, reports, ac);
    if (!analysis || analysis->error) {
      const std::string why = analysis ? analysis->error->message : analysis.error().message;
      for (const VariantTickInput& v : m.variants) {
        mr.requests.push_back(hold(v.state.spec.name, v.state.current_replicas,
                                   make_reason(ReasonCode::kNoCapacityData, "queueing.failed",
                                               {{"current", v.state.current_replicas}, {"error", why}})));
      }
    } else {
      CapacitySignal signal;
      signal.unit = "req/s";
      signal.supply = analysis->total_supply_rps;
      signal.demand = analysis->total_demand_rps;
      signal.required = analysis->required_rps;
      signal.spare = analysis->spare_rps;
      for (size_t i = 0; i < m.variants.size(); ++i) {
        const VariantSpec& spec = m.variants[i].state.spec;
        const VariantAnalysis& va = analysis->variants[i];
        const VariantCapacity& c = va.capacity;
        signal.variants.push_back({spec.name, c.per_replica_capacity_rps, spec.cost_per_replica, c.current_replicas,
                                   c.pending_replicas, spec.min_replicas, spec.max_replicas, spec.gpus_per_replica});
        if (c.status == CapacityStatus::kOk) {
          out.events.push_back(CapacitySized{m.model, spec.name, analysis->slo.targets, to_string(analysis->slo.path),
                                             va.lambda_star_rps, c.per_replica_capacity_rps, "mean",
                                             c.total_demand_rps, c.required_replicas});
        }
      }
      mr.requests = optimize_cost_aware(signal);
      for (size_t i = 0; i < mr.requests.size(); ++i) {
        const VariantCapacity& c = analysis->variants[i].capacity;
        if (c.status == CapacityStatus::kOk) {
          Reason& r = mr.requests[i].reason;
          r = make_reason(r.code, "queueing.sized",
                          {{"per_replica_rps", c.per_replica_capacity_rps}, {"slo", describe(analysis->slo.targets)}},
                          {std::move(r)});
        }
      }
    }
    out.proposal = finish_model(mr, config, time, state.finisher, out.events);
    out.next = std::move(state);
    return out;
  }
};

}  // namespace

std::shared_ptr<const TickPolicy> queueing_policy() {
  static const auto policy = std::make_shared<const Queueing>();
  return policy;
}

}  // namespace capstan
