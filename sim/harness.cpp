// The policy harness loop; see harness.hpp.
#include "sim/harness.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <variant>

#include "sim/outcome_stats.hpp"
#include "sim/rng.hpp"
#include "sim/simulated_models.hpp"

namespace capstan::sim {

namespace {

// The stream model_seed() derives seeds from ("model" in ASCII), apart from the
// streams the fleet derives replica seeds from.
constexpr std::uint64_t kModelSeedStream = 0x6d6f64656cULL;

ForwardPassSample to_sample(const ForwardPass& pass) {
  ForwardPassSample s;
  s.wall_time_ms = pass.wall_time_ms;
  s.scheduled_prefill_tokens = static_cast<double>(pass.scheduled_prefill_tokens);
  s.decode_kv_tokens = static_cast<double>(pass.decode_kv_tokens);
  s.queued_requests = pass.queued_requests;
  s.running_requests = pass.running_requests;
  return s;
}

// One tick of every model: fleet state per variant in run order, latencies over the
// requests of all models.
TickRecord record_tick(double now_s, const std::vector<Observation>& observations,
                       const std::vector<std::unique_ptr<Simulation>>& sims) {
  TickRecord rec;
  rec.time_s = now_s;
  std::vector<double> ttft_ms, itl_ms;
  for (std::size_t m = 0; m < observations.size(); ++m) {
    const Observation& obs = observations[m];
    rec.arrival_rate_rps += obs.window_s > 0 ? static_cast<double>(obs.arrivals) / obs.window_s : 0;
    rec.arrived += static_cast<long long>(obs.arrivals);
    rec.queued += static_cast<long long>(obs.upstream_queue_size + obs.decode_queue_size);
    for (const auto& v : obs.variants) {
      for (const PodMetrics& pod : v.pods) rec.queued += static_cast<long long>(pod.queue_length);
      rec.replicas.push_back(v.state.current);
      rec.ready.push_back(v.state.ready);
      rec.draining.push_back(v.state.draining);
    }
    for (const auto& o : sims[m]->recent_outcomes()) {
      if (o.failed) {
        ++rec.failed;
        continue;
      }
      ++rec.completed;
      ttft_ms.push_back(o.ttft_s * 1000.0);
      itl_ms.push_back(o.mean_itl_s * 1000.0);
    }
  }
  rec.ttft_p50_ms = percentile(ttft_ms, 50);
  rec.ttft_p99_ms = percentile(std::move(ttft_ms), 99);
  rec.itl_p50_ms = percentile(itl_ms, 50);
  rec.itl_p99_ms = percentile(std::move(itl_ms), 99);
  return rec;
}

// TTFTs and failures by the tick window each request arrived in (TickRecord::arrived_*).
struct ByArrival {
  SloTargets slo;
  std::vector<std::vector<double>> ttft_ms;
  std::vector<long long> failed, met_slo;

  void add(const std::vector<std::unique_ptr<Simulation>>& sims, double tick_s) {
    for (const auto& sim : sims)
      for (const auto& o : sim->recent_outcomes()) {
        const auto k = static_cast<std::size_t>(std::max(0.0, std::ceil(o.arrival_s / tick_s) - 1));
        if (k >= ttft_ms.size()) {
          ttft_ms.resize(k + 1);
          failed.resize(k + 1, 0);
          met_slo.resize(k + 1, 0);
        }
        if (meets_slo(o, slo)) ++met_slo[k];
        if (o.failed) ++failed[k];
        else ttft_ms[k].push_back(o.ttft_s * 1000.0);
      }
  }

  void fill(std::vector<TickRecord>& series) {
    for (std::size_t k = 0; k < series.size(); ++k) {
      TickRecord& t = series[k];
      const long long done = k < ttft_ms.size() ? static_cast<long long>(ttft_ms[k].size()) : 0;
      t.arrived_failed = k < failed.size() ? failed[k] : 0;
      t.arrived_met_slo = k < met_slo.size() ? met_slo[k] : 0;
      t.arrived_unfinished = std::max(0LL, t.arrived - done - t.arrived_failed);
      t.arrived_ttft_p99_ms = k < ttft_ms.size() ? percentile(std::move(ttft_ms[k]), 99) : 0;
    }
  }
};

// The run's report over several models (see PolicyRun::report).
RunReport combined_report(const std::vector<std::unique_ptr<Simulation>>& sims, const PolicyRun& run) {
  if (sims.size() == 1) return run.models[0].report;
  OutcomeStats all(sims[0]->stats().slo());
  for (const auto& sim : sims) all.merge(sim->stats());
  RunReport r;
  for (std::size_t m = 0; m < sims.size(); ++m) {
    const RunReport& own = run.models[m].report;
    r.duration_s = std::max(r.duration_s, own.duration_s);
    r.requests += own.requests;
    r.in_flight += own.in_flight;
    r.replica_hours += own.replica_hours;
    r.gpu_hours += own.gpu_hours;
    r.cost += own.cost;
    r.preemptions += own.preemptions;
    for (ScaleAction a : own.scale_actions) {
      a.variant = run.models[m].model + "/" + a.variant;
      r.scale_actions.push_back(std::move(a));
    }
  }
  std::stable_sort(r.scale_actions.begin(), r.scale_actions.end(),
                   [](const ScaleAction& a, const ScaleAction& b) { return a.time_s < b.time_s; });
  fill_outcomes(r, all);
  return r;
}

std::string tick_label(double t_s) { return "tick at " + std::to_string(static_cast<long long>(t_s)) + " s"; }

}  // namespace

const char* to_string(MetricsGapKind kind) {
  switch (kind) {
    case MetricsGapKind::kNaN: return "nan";
    case MetricsGapKind::kStale: return "stale";
    case MetricsGapKind::kMissing: break;
  }
  return "missing";
}

std::size_t variant_index(const PolicyRun& run, const Decision& d) {
  for (const ModelRun& m : run.models) {
    if (m.model != d.model.model_id) continue;
    for (std::size_t i = m.first_variant; i < m.first_variant + m.variant_count; ++i) {
      const std::string& name = run.variants[i];
      // Several models: "<model>/<variant>"; one: the variant's own name.
      const bool same = run.models.size() == 1
                            ? name == d.variant
                            : name.size() == m.model.size() + 1 + d.variant.size() &&
                                  name.compare(m.model.size() + 1, std::string::npos, d.variant) == 0;
      if (same) return i;
    }
  }
  return run.variants.size();
}

std::uint64_t model_seed(std::uint64_t run_seed, std::size_t model) {
  return model == 0 ? run_seed : derive_seed(run_seed, kModelSeedStream + model);
}

TickInput to_tick_input(const Observation& obs, const FleetConfig& fleet,
                        const std::vector<std::optional<int>>& desired, double interval_s,
                        const std::string& model_namespace, const ReadsForwardPasses& reads_forward_passes) {
  TickInput input;
  input.now_s = obs.now_s;
  input.interval_s = interval_s;
  ModelTickInput model;
  model.model = {model_namespace, fleet.model};
  model.upstream_queue = static_cast<double>(obs.upstream_queue_size);
  model.decode_queue = static_cast<double>(obs.decode_queue_size);
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
    v.new_cold_starts_s = vo.new_cold_starts_s;
    v.configured_cold_start_s = config.pending_s + config.cold_start_s;
    model.variants.push_back(std::move(v));
  }
  if (!reads_forward_passes || reads_forward_passes(model))
    for (std::size_t i = 0; i < obs.variants.size(); ++i) {
      std::vector<ForwardPassSample>& passes = model.variants[i].forward_passes;
      passes.reserve(obs.variants[i].forward_passes.size());
      for (const ForwardPass& pass : obs.variants[i].forward_passes) passes.push_back(to_sample(pass));
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
      for (PodMetrics& p : v.state.pods) {
        p.arrival_rate_rps = p.avg_ttft_ms = p.avg_itl_ms = p.avg_input_tokens = p.avg_output_tokens = p.kv_usage =
            p.queue_length = p.running = x;
        p.request_itl.sum_ms = p.request_itl.count = x;
      }
    }
}

void freeze_metrics(TickInput& input, const TickInput& frozen) {
  const double age_s = input.now_s - frozen.now_s;
  for (std::size_t m = 0; m < input.models.size(); ++m)
    for (std::size_t i = 0; i < input.models[m].variants.size(); ++i) {
      VariantTickInput& v = input.models[m].variants[i];
      v.forward_passes.clear();
      v.state.pods.clear();
      if (m >= frozen.models.size() || i >= frozen.models[m].variants.size()) continue;
      v.state.pods = frozen.models[m].variants[i].state.pods;
      for (PodMetrics& p : v.state.pods) p.sample_age_s += age_s;
    }
}

Result<PolicyRun> run_policy(Policy& policy, std::vector<ModelInput> models, const HarnessOptions& options) {
  if (!(options.tick_s > 0)) return invalid_argument("tick_s must be > 0");
  auto created = SimulatedModels::create(std::move(models), options.seed, options.slo);
  if (!created.ok()) return created.error();
  SimulatedModels& fleet = created.value();
  const auto& sims = fleet.simulations();
  PolicyRun run;
  run.policy = policy.name();
  for (std::size_t m = 0; m < fleet.size(); ++m) {
    const FleetConfig& f = fleet.fleets()[m];
    ModelRun mr;
    mr.model = f.model;
    mr.priority = fleet.priorities()[m];
    mr.first_variant = run.variants.size();
    mr.variant_count = f.variants.size();
    for (const auto& v : f.variants) {
      run.variants.push_back(fleet.size() == 1 ? v.name : f.model + "/" + v.name);
      run.variant_model.push_back(m);
    }
    run.models.push_back(std::move(mr));
  }
  const auto& gap = options.metrics_gap;
  std::optional<TickInput> before_gap;  // the stale gap's frozen view
  bool policy_failed = false;
  double exhausted_at_s = -1;
  ByArrival by_arrival{options.slo, {}, {}, {}};
  for (long long k = 1;; ++k) {
    // Times as k * tick, not repeated sums, so that long runs do not drift.
    const double t_s = static_cast<double>(k) * options.tick_s;
    auto advanced = fleet.advance_to(t_s);
    if (!advanced.ok()) return advanced.error();
    const bool more = advanced.value() || t_s < options.min_duration_s;
    const std::vector<Observation> observations = fleet.observe();
    TickRecord rec = record_tick(t_s, observations, sims);
    by_arrival.add(sims, options.tick_s);
    if (more && !policy_failed) {
      std::vector<Decision> decisions;
      try {
        TickInput input = fleet.tick_input(observations, t_s, options.tick_s, options.model_namespace);
        const bool in_gap = gap && t_s >= gap->from_s && t_s < gap->to_s;
        if (!in_gap && gap && gap->kind == MetricsGapKind::kStale) before_gap = input;
        if (in_gap && gap->kind == MetricsGapKind::kStale) {
          freeze_metrics(input, before_gap ? *before_gap : TickInput{});
        } else if (in_gap) {
          blank_metrics(input, gap->kind == MetricsGapKind::kNaN);
        }
        decisions = policy.tick(input);
        if (const auto* driven = dynamic_cast<const DrivenPolicy*>(&policy))
          for (const TickEvent& event : driven->last_events())
            if (const auto* forecast = std::get_if<ForecastMade>(&event)) rec.forecasts.push_back(*forecast);
        if (options.on_tick) options.on_tick(input, decisions);
      } catch (const std::exception& e) {
        policy_failed = true;
        run.error = tick_label(t_s) + " threw: " + e.what();
      } catch (...) {
        policy_failed = true;
        run.error = tick_label(t_s) + " threw a non-standard exception";
      }
      for (const Decision& d : decisions) {
        const std::size_t index = variant_index(run, d);
        if (index == run.variants.size()) {
          if (run.error.empty())
            run.error = tick_label(t_s) + ": decision for unknown variant '" + d.model.model_id + "/" + d.variant +
                        "' ignored";
          continue;
        }
        (void)fleet.set_desired(run.variant_model[index], d.variant, d.target_replicas);
      }
      rec.decisions = std::move(decisions);
    }
    run.series.push_back(std::move(rec));
    if (!more) break;
    if (fleet.trace_exhausted()) {
      if (exhausted_at_s < 0) exhausted_at_s = t_s;
      if (t_s - exhausted_at_s >= options.drain_limit_s && t_s >= options.min_duration_s) break;
    }
  }
  by_arrival.fill(run.series);
  const std::vector<RunReport> reports = fleet.reports();
  for (std::size_t m = 0; m < reports.size(); ++m) run.models[m].report = reports[m];
  run.report = combined_report(sims, run);
  return run;
}

Result<PolicyRun> run_policy(Policy& policy, const FleetConfig& fleet, std::unique_ptr<TraceSource> trace,
                             const HarnessOptions& options) {
  std::vector<ModelInput> models;
  models.push_back({fleet, std::move(trace), 1});
  return run_policy(policy, std::move(models), options);
}

}  // namespace capstan::sim
