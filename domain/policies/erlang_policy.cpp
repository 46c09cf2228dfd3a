#include "domain/policies/erlang_policy.hpp"

#include <algorithm>
#include <cmath>

#include "domain/model/erlang.hpp"
#include "domain/model/model_learning.hpp"
#include "domain/policies/learning_policy.hpp"
#include "domain/core/format.hpp"
#include "domain/model/queue_model.hpp"
#include "domain/model/sla_sizing.hpp"
#include "domain/stages/warm_pool.hpp"

namespace capstan {

namespace {

// SLA penalty per hour, as a multiple of a replica's hourly cost (Inferscale's
// sla_penalty_per_hour is a per-deployment setting; capstan scales it to the variant).
constexpr double kPenaltyPerReplicaCost = 20;

std::vector<ScalingRequest> plan_requests(const ModelTickInput& m, std::span<const VariantView> views,
                                          const PolicyConfig& config, const TickTime& time, ErlangMemory& memory,
                                          std::vector<TickEvent>& events) {
  const double interval_s = time.interval_s;
  const ModelObservation seen = observe_model(m, views, time);
  if (!memory.forecast) memory.forecast = make_holt_state(HoltConfig::with_alpha(0.3)).value();
  HoltState& holt = *memory.forecast;
  if (seen.usable) holt = observe(holt, seen.now.rate_rps);
  const double ahead_rps = forecast(holt, seen.horizon_s / interval_s);
  const double demand = std::max(ahead_rps, seen.now.rate_rps);
  events.push_back(ForecastMade{m.model, "holt", seen.horizon_s, ahead_rps, seen.now.rate_rps, {}});

  // The server: the variant with the lowest cost per unit of learned capacity.
  int best = -1;
  std::vector<double> mu(m.variants.size(), 0.0);
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    const std::optional<TunerState>& tuner = views[i].learned.tuner;
    if (!tuner || !seen.has_token_lengths) continue;
    auto qa = QueueAnalyzer::create(tuner->params, {v.spec.max_batch_size, v.spec.max_queue_size},
                                    {seen.now.avg_input_tokens, std::max(1.0, seen.now.avg_output_tokens)});
    if (!qa) continue;
    auto sized = qa->size(config.slo);
    if (!sized || !(sized->at_lambda_star.throughput_rps > 0)) continue;
    mu[i] = sized->at_lambda_star.throughput_rps;
    const auto cost_per_capacity = [&](size_t j) { return m.variants[j].state.spec.cost_per_replica / mu[j]; };
    if (best < 0 || cost_per_capacity(i) < cost_per_capacity(static_cast<size_t>(best))) best = static_cast<int>(i);
  }
  if (best < 0) return saturation_fallback(m, SaturationConfig{});

  const VariantState& chosen = m.variants[static_cast<size_t>(best)].state;
  const double mu_best = mu[static_cast<size_t>(best)];
  // Replicas of the other variants, in servers of the chosen kind.
  double others = 0;
  for (size_t i = 0; i < m.variants.size(); ++i) {
    if (static_cast<int>(i) != best) others += m.variants[i].state.current_replicas * mu[i] / mu_best;
  }
  // Erlang-C bounds the wait by the TTFT target. Without one (0: not constrained) there
  // is no wait to bound: the replicas are sized by lambda* at the ITL target alone.
  const bool wait_bound = config.slo.constrains_ttft();
  const double sla_s = config.slo.ttft_ms / 1000.0;
  std::optional<int> k_sla;
  std::optional<WarmPoolChoice> pool;
  if (wait_bound) {
    if (auto k = required_servers(demand, mu_best, sla_s, config.tail_probability)) k_sla = *k;
    const double cost = chosen.spec.cost_per_replica;
    WarmPoolInputs wp{demand, mu_best, sla_s, cost / std::max(1, chosen.spec.gpus_per_replica),
                      std::max(1, chosen.spec.gpus_per_replica), kPenaltyPerReplicaCost * cost,
                      0, std::max(chosen.spec.max_replicas, 1) + static_cast<int>(std::ceil(others))};
    if (auto p = optimize_warm_pool(wp)) pool = *p;
  }

  std::vector<ScalingRequest> out;
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    if (static_cast<int>(i) != best) {
      out.push_back(hold(v.spec.name, v.current_replicas,
                         make_reason(ReasonCode::kHold, "erlang.counted",
                                     {{"current", v.current_replicas}, {"target", v.current_replicas},
                                      {"chosen", chosen.spec.name}})));
      continue;
    }
    int k = wait_bound ? std::max(k_sla.value_or(0), pool ? pool->replicas : 0) : replicas_for(demand, mu_best);
    if (demand <= 0) k = 0;
    const int target = std::max(0, k - static_cast<int>(std::floor(others)));
    events.push_back(CapacitySized{m.model, v.spec.name, config.slo, "explicit", mu_best, mu_best,
                                   wait_bound ? "erlang-c" : "mean", demand, k});
    std::vector<Figure> figures{{"current", v.current_replicas}, {"target", target},
                                {"demand_rps", demand},          {"horizon_s", seen.horizon_s},
                                {"per_replica_rps", mu_best},    {"replicas", k}};
    if (wait_bound) {
      figures.insert(figures.end(), {{"wait_target_s", sla_s}, {"tail_probability", config.tail_probability}});
      if (k_sla) figures.emplace_back("erlang_c_replicas", *k_sla);
    } else {
      figures.emplace_back("slo", describe(config.slo));
    }
    if (pool) figures.insert(figures.end(), {{"warm_pool", pool->replicas}, {"p_violation", pool->p_violation}});
    out.push_back({v.spec.name, v.current_replicas, target,
                   make_reason(direction_code(v.current_replicas, target), "erlang.sized", std::move(figures))});
  }
  return out;
}

class Erlang final : public LearningPolicy<ErlangMemory> {
 public:
  std::string name() const override { return "erlang"; }

 private:
  std::vector<ScalingRequest> requests(const ModelTickInput& m, std::span<const VariantView> views,
                                       const PolicyConfig& config, const TickTime& time, ErlangMemory& memory,
                                       std::vector<TickEvent>& events) const override {
    return plan_requests(m, views, config, time, memory, events);
  }
};

}  // namespace

std::shared_ptr<const TickPolicy> erlang_policy() {
  static const auto policy = std::make_shared<const Erlang>();
  return policy;
}

}  // namespace capstan
