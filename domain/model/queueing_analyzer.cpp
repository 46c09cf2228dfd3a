#include "domain/model/queueing_analyzer.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/format.hpp"
#include "domain/model/queue_model.hpp"

namespace capstan {
namespace {

void fail(VariantAnalysis& v, CapacityStatus status, std::string reason) {
  VariantCapacity& c = v.capacity;
  c.per_replica_capacity_rps = c.total_capacity_rps = c.total_demand_rps = c.utilization = 0;
  c.required_replicas = 0;
  c.status = status;
  c.reason = std::move(reason);
}

void size_variant(const VariantInput& in, const SloTargets& slo, VariantAnalysis& v) {
  VariantCapacity& c = v.capacity;
  if (in.pods.empty()) return fail(v, CapacityStatus::kNoMetrics, "no pod reported metrics");
  if (!v.workload.has_traffic()) return fail(v, CapacityStatus::kNoTraffic, "no pod had arrivals");
  if (!v.tuner) return fail(v, CapacityStatus::kNoParameters, "no learned parameters yet");
  auto qa = QueueAnalyzer::create(v.tuner->params, {in.spec.max_batch_size, in.spec.max_queue_size},
                                  {v.workload.avg_input_tokens, std::max(1.0, v.workload.avg_output_tokens)});
  if (!qa) return fail(v, CapacityStatus::kModelError, qa.error().message);
  auto sized = qa->size(slo);
  if (!sized) return fail(v, CapacityStatus::kModelError, sized.error().message);
  const double per_replica = sized->at_lambda_star.throughput_rps;
  if (!(per_replica > 0)) return fail(v, CapacityStatus::kModelError, "zero capacity at the SLO");

  v.lambda_star_rps = sized->lambda_star_rps;
  c.per_replica_capacity_rps = per_replica;
  c.total_capacity_rps = per_replica * c.ready_replicas;
  c.total_demand_rps = v.workload.total_arrival_rps;
  c.required_replicas = std::max(1, static_cast<int>(std::ceil(c.total_demand_rps / per_replica)));
  const int serving = std::max(1, c.ready_replicas);
  c.utilization = (c.total_demand_rps / serving) / per_replica;
  c.status = CapacityStatus::kOk;
  c.reason = "demand " + fmt_num(c.total_demand_rps) + " req/s over lambda* " + fmt_num(per_replica) +
             " req/s per replica needs " + std::to_string(c.required_replicas) + " replica(s)";
}

}  // namespace

VariantTuning tune_variant(const VariantInput& in, const TunerConfig& config) {
  return tune_variant(in.pods, in.spec.max_batch_size, in.tuner, config);
}

VariantTuning tune_variant(std::span<const PodMetrics> pods, int max_batch_size, std::optional<TunerState> tuner,
                           const TunerConfig& config) {
  VariantTuning out{std::move(tuner), {"none", false, 0, ""}};
  const VariantWorkload w = aggregate_for_tuning(pods, config.transient_delay_s);
  if (!w.has_traffic()) {
    out.report.reason = w.busy_pods == 0 && aggregate(pods).has_traffic()
                            ? "every busy pod started less than " + fmt_num(config.transient_delay_s) + " s ago"
                            : "no traffic to learn from";
    return out;
  }
  // The queue model describes one replica: learn from the average busy pod's rate.
  const TunerObservation obs{w.avg_ttft_ms, w.avg_itl_ms, w.avg_input_tokens,
                             std::max(1.0, w.avg_output_tokens), w.total_arrival_rps / w.busy_pods,
                             max_batch_size, config.bootstrap_at_batch ? w.avg_running : 1.0};
  if (auto err = validate(obs)) {
    out.report.reason = "observation not usable: " + err->message;
    return out;
  }
  if (!out.tuner) {
    const TunerStart start = initial_state(obs, config);
    out.tuner = start.state;
    out.report = {to_string(start.source), true, 0, ""};
    return out;
  }
  auto step = tune_step(*out.tuner, obs, config);
  if (!step) {
    out.report.reason = step.error().message;
    return out;
  }
  out.tuner = step->state;
  out.report = {"ekf", step->accepted, step->nis, step->reason};
  return out;
}

Result<ModelAnalysis> analyze_model(const ModelKey& model, const std::vector<VariantInput>& variants,
                                    const QueueingAnalyzerConfig& config) {
  if (auto err = validate(config.slo)) return *err;
  std::vector<VariantInput> tuned = variants;
  std::vector<TunerReport> reports;
  for (VariantInput& in : tuned) {
    VariantTuning t = tune_variant(in, config.tuner);
    in.tuner = std::move(t.tuner);
    reports.push_back(std::move(t.report));
  }
  return analyze_tuned(model, tuned, reports, config);
}

Result<ModelAnalysis> analyze_tuned(const ModelKey& model, const std::vector<VariantInput>& variants,
                                    const std::vector<TunerReport>& reports, const QueueingAnalyzerConfig& config) {
  if (auto err = validate(config.slo)) return *err;
  if (reports.size() != variants.size()) {
    return invalid_argument("one tuner report per variant expected (" + std::to_string(variants.size()) + "), got " +
                            std::to_string(reports.size()));
  }
  ModelAnalysis out;
  out.model = model;
  std::vector<VariantSloInput> slo_inputs;
  for (size_t i = 0; i < variants.size(); ++i) {
    const VariantInput& in = variants[i];
    VariantAnalysis v;
    v.capacity.variant = in.spec.name;
    v.capacity.current_replicas = in.current_replicas;
    v.capacity.pending_replicas = in.pending_replicas;
    v.capacity.ready_replicas = std::max(in.current_replicas - in.pending_replicas, 0);
    v.capacity.cost_per_replica = in.spec.cost_per_replica;
    v.workload = aggregate(in.pods);
    v.tuner = in.tuner;
    v.tuning = reports[i];

    VariantSloInput s;
    if (v.tuner && v.tuner->accepted_updates >= config.min_updates_for_derived_slo) s.params = v.tuner->params;
    s.avg_input_tokens = v.workload.avg_input_tokens;
    s.avg_output_tokens = v.workload.avg_output_tokens;
    s.observed_ttft_ms = v.workload.avg_ttft_ms;
    s.observed_itl_ms = v.workload.avg_itl_ms;
    slo_inputs.push_back(s);
    out.variants.push_back(std::move(v));
  }

  auto slo = resolve_slo(config.slo, slo_inputs);
  if (!slo) {
    // Without any SLO no variant can be sized; the roster still goes out.
    for (auto& v : out.variants) {
      fail(v, v.workload.has_traffic() ? CapacityStatus::kNoParameters : CapacityStatus::kNoTraffic,
           slo.error().message);
    }
    out.error = Error{ErrorCode::kNoData, slo.error().message};
    return out;
  }
  out.slo = *slo;

  bool any_ok = false;
  for (size_t i = 0; i < variants.size(); ++i) {
    VariantAnalysis& v = out.variants[i];
    size_variant(variants[i], out.slo.targets, v);
    any_ok = any_ok || v.capacity.status == CapacityStatus::kOk;
    out.total_supply_rps += v.capacity.total_capacity_rps;
    out.total_demand_rps += v.capacity.total_demand_rps;
  }
  if (!any_ok) out.error = Error{ErrorCode::kNoData, "no variant could be analysed"};
  out.utilization = out.total_supply_rps > 0 ? out.total_demand_rps / out.total_supply_rps : 0;
  out.required_rps = std::max(0.0, out.total_demand_rps - out.total_supply_rps);
  out.spare_rps = std::max(0.0, out.total_supply_rps - out.total_demand_rps);
  return out;
}

}  // namespace capstan
