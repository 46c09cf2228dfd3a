// The policy harness loop; see harness.hpp.
#include "sim/harness.hpp"

#include <exception>
#include <limits>

namespace capstan::sim {

namespace {

ForwardPassSample to_sample(const ForwardPass& pass) {
  ForwardPassSample s;
  s.wall_time_ms = pass.wall_time_ms;
  s.scheduled_prefill_tokens = static_cast<double>(pass.scheduled_prefill_tokens);
  s.decode_kv_tokens = static_cast<double>(pass.decode_kv_tokens);
  s.queued_requests = pass.queued_requests;
  s.running_requests = pass.running_requests;
  return s;
}

TickRecord record_tick(const Observation& obs, const std::vector<RequestOutcome>& finished) {
  TickRecord rec;
  rec.time_s = obs.now_s;
  rec.arrival_rate_rps = obs.window_s > 0 ? static_cast<double>(obs.arrivals) / obs.window_s : 0;
  for (const auto& v : obs.variants) {
    rec.replicas.push_back(v.state.current);
    rec.ready.push_back(v.state.ready);
  }
  std::vector<double> ttft_ms, itl_ms;
  for (const auto& o : finished) {
    if (o.failed) {
      ++rec.failed;
      continue;
    }
    ++rec.completed;
    ttft_ms.push_back(o.ttft_s * 1000.0);
    itl_ms.push_back(o.mean_itl_s * 1000.0);
  }
  rec.ttft_p50_ms = percentile(ttft_ms, 50);
  rec.ttft_p99_ms = percentile(ttft_ms, 99);
  rec.itl_p50_ms = percentile(itl_ms, 50);
  rec.itl_p99_ms = percentile(std::move(itl_ms), 99);
  return rec;
}

}  // namespace

TickInput to_tick_input(const Observation& obs, const FleetConfig& fleet,
                        const std::vector<std::optional<int>>& desired, double interval_s,
                        const std::string& model_namespace) {
  TickInput input;
  input.now_s = obs.now_s;
  input.interval_s = interval_s;
  ModelTickInput model;
  model.model = {model_namespace, fleet.model};
  model.upstream_queue = static_cast<double>(obs.upstream_queue_size);
  model.arrival_rate_rps = obs.window_s > 0 ? static_cast<double>(obs.arrivals) / obs.window_s : 0;
  for (std::size_t i = 0; i < obs.variants.size(); ++i) {
    const VariantObservation& vo = obs.variants[i];
    const VariantConfig& config = fleet.variants[i];
    VariantTickInput v;
    v.state.spec = to_variant_spec(config);
    v.state.current_replicas = vo.state.current;
    v.state.pending_replicas = vo.state.pending + vo.state.loading;
    v.state.desired_replicas = i < desired.size() ? desired[i] : std::nullopt;
    for (const PodMetrics& pod : vo.pods)
      if (pod.ready) v.state.pods.push_back(pod);
    v.forward_passes.reserve(vo.forward_passes.size());
    for (const ForwardPass& pass : vo.forward_passes) v.forward_passes.push_back(to_sample(pass));
    v.new_cold_starts_s = vo.new_cold_starts_s;
    v.configured_cold_start_s = config.pending_s + config.cold_start_s;
    model.variants.push_back(std::move(v));
  }
  input.models.push_back(std::move(model));
  return input;
}

void blank_metrics(TickInput& input, bool nan) {
  const double x = std::numeric_limits<double>::quiet_NaN();
  for (ModelTickInput& m : input.models)
    for (VariantTickInput& v : m.variants) {
      v.forward_passes.clear();
      if (!nan) {
        v.state.pods.clear();
        continue;
      }
      for (PodMetrics& p : v.state.pods)
        p.arrival_rate_rps = p.avg_ttft_ms = p.avg_itl_ms = p.avg_input_tokens = p.avg_output_tokens = p.kv_usage =
            p.queue_length = p.running = x;
    }
}

Result<PolicyRun> run_policy(Policy& policy, const FleetConfig& fleet, std::unique_ptr<TraceSource> trace,
                             const HarnessOptions& options) {
  if (!(options.tick_s > 0)) return invalid_argument("tick_s must be > 0");
  PolicyRun run;
  run.policy = policy.name();
  for (const auto& v : fleet.variants) run.variants.push_back(v.name);
  Simulation sim(fleet, std::move(trace), options.seed, options.slo);
  std::vector<std::optional<int>> desired(fleet.variants.size());
  bool policy_failed = false;
  double exhausted_at_s = -1;
  for (long long k = 1;; ++k) {
    // Times as k * tick, not repeated sums, so that long runs do not drift.
    const double t_s = static_cast<double>(k) * options.tick_s;
    const bool more = sim.advance_to(t_s) || t_s < options.min_duration_s;
    if (sim.error()) return *sim.error();
    const Observation obs = sim.observe();
    TickRecord rec = record_tick(obs, sim.recent_outcomes());
    if (more && !policy_failed) {
      std::vector<Decision> decisions;
      try {
        TickInput input = to_tick_input(obs, fleet, desired, options.tick_s, options.model_namespace);
        const auto& gap = options.metrics_gap;
        if (gap && t_s >= gap->from_s && t_s < gap->to_s) blank_metrics(input, gap->nan);
        decisions = policy.tick(input);
      } catch (const std::exception& e) {
        policy_failed = true;
        run.error = "tick at " + std::to_string(static_cast<long long>(t_s)) + " s threw: " + e.what();
      } catch (...) {
        policy_failed = true;
        run.error = "tick at " + std::to_string(static_cast<long long>(t_s)) + " s threw a non-standard exception";
      }
      for (const Decision& d : decisions) {
        std::size_t index = fleet.variants.size();
        for (std::size_t i = 0; i < fleet.variants.size(); ++i)
          if (fleet.variants[i].name == d.variant) index = i;
        if (d.model.model_id != fleet.model || index == fleet.variants.size()) {
          if (run.error.empty())
            run.error = "tick at " + std::to_string(static_cast<long long>(t_s)) + " s: decision for unknown " +
                        "variant '" + d.model.model_id + "/" + d.variant + "' ignored";
          continue;
        }
        auto applied = sim.set_desired(d.variant, d.target_replicas);
        if (applied.ok()) desired[index] = applied.value();
      }
      rec.decisions = std::move(decisions);
    }
    run.series.push_back(std::move(rec));
    if (!more) break;
    if (sim.trace_exhausted()) {
      if (exhausted_at_s < 0) exhausted_at_s = t_s;
      if (t_s - exhausted_at_s >= options.drain_limit_s && t_s >= options.min_duration_s) break;
    }
  }
  run.report = sim.report();
  return run;
}

}  // namespace capstan::sim
