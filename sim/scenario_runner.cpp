// Scenario runs through the policy harness; see scenario_runner.hpp.
#include "sim/scenario_runner.hpp"

#include <algorithm>
#include <cmath>

#include "sim/fleet_oracle.hpp"
#include "sim/static_fleet.hpp"
#include "sim/sustainable_rate.hpp"
#include "sim/synthetic_trace.hpp"
#include "sim/trace_demand.hpp"
#include "sim/trace_open.hpp"

namespace capstan::sim {
namespace {

// Ends a source at the first arrival at or after end_s.
class CutTrace : public TraceSource {
 public:
  CutTrace(std::unique_ptr<TraceSource> inner, double end_s) : inner_(std::move(inner)), end_s_(end_s) {}
  Result<std::optional<Request>> next() override {
    if (done_) return std::optional<Request>{};
    auto r = inner_->next();
    if (r.ok() && r.value() && r.value()->arrival_s >= end_s_) {
      done_ = true;
      return std::optional<Request>{};
    }
    return r;
  }

 private:
  std::unique_ptr<TraceSource> inner_;
  double end_s_;
  bool done_ = false;
};

// from_rps until at_s, linear to to_rps over ramp_s, to_rps after.
RateCurve ramp_rate(double from_rps, double to_rps, double at_s, double ramp_s) {
  return {[=](double t) {
            if (t < at_s) return from_rps;
            if (ramp_s <= 0 || t >= at_s + ramp_s) return to_rps;
            return from_rps + (to_rps - from_rps) * (t - at_s) / ramp_s;
          },
          std::max(from_rps, to_rps)};
}

RateCurve rate_curve(const WorkloadSpec& w) {
  auto p = [&](const char* key) { return w.params.count(key) ? w.params.at(key) : 0.0; };
  if (w.generator == "poisson") return poisson_rate(p("rate_rps"));
  if (w.generator == "diurnal") return diurnal_rate(p("mean_rps"), p("amplitude"), p("period_s"), p("phase_rad"));
  if (w.generator == "step") return step_rate(w.steps);
  if (w.generator == "rates") return interpolated_rate(w.rate_points);
  if (w.generator == "burst") return burst_rate(p("base_rps"), p("burst_rps"), p("period_s"), p("burst_s"));
  return ramp_rate(p("from_rps"), p("to_rps"), p("at_s"), p("ramp_s"));
}

std::shared_ptr<LengthSource> length_source(const LengthSpec& l) {
  if (l.input_cv == 0 && l.output_cv == 0)
    return fixed_lengths(static_cast<int>(std::lround(l.input_mean)), static_cast<int>(std::lround(l.output_mean)));
  return lognormal_lengths(l.input_mean, l.input_cv, l.output_mean, l.output_cv, l.input_max);
}

// "models[1]." in errors of a several-model scenario, "" in a one-model one.
std::string model_key(const Scenario& s, std::size_t model) {
  return s.models.size() == 1 ? "" : "models[" + std::to_string(model) + "].";
}

bool any_check(const Scenario& s, bool CheckInfo::*needs) {
  return std::any_of(s.checks.begin(), s.checks.end(), [&](const CheckSpec& c) {
    const CheckInfo* info = find_check(c.check);
    return info != nullptr && info->*needs;
  });
}

// The fleet-level oracle of each model on its own (no budget): GPU-hours summed, the
// peak as the most replicas all plans hold in the same window.
std::optional<Error> add_oracle(PreparedScenario& p) {
  const Scenario& s = p.scenario;
  double gpu_hours = 0;
  std::vector<int> per_window;
  for (std::size_t m = 0; m < s.models.size(); ++m) {
    auto trace = open_workload(s, m);
    if (!trace.ok()) return trace.error();
    FleetOracleOptions o;
    o.seed = model_seed(s.seed, m);
    o.attainment_target = s.slo_attainment;
    auto oracle = compute_fleet_oracle(p.fleets[m], *trace.value(), s.slo, o);
    if (!oracle.ok()) return invalid_argument(s.file + ": " + model_key(s, m) + "workload: " + oracle.error().message);
    gpu_hours += oracle.value().gpu_hours;
    const auto& windows = oracle.value().windows;
    if (per_window.size() < windows.size()) per_window.resize(windows.size(), 0);
    for (std::size_t w = 0; w < windows.size(); ++w)
      for (int r : windows[w].replicas) per_window[w] += r;
  }
  p.oracle_gpu_hours = gpu_hours;
  p.oracle_peak_replicas = per_window.empty() ? 0 : *std::max_element(per_window.begin(), per_window.end());
  return std::nullopt;
}

// One replica's sustainable rate per variant of the run (the per-replica estimate).
std::optional<Error> add_sustainable_rates(PreparedScenario& p) {
  const Scenario& s = p.scenario;
  for (std::size_t m = 0; m < s.models.size(); ++m) {
    auto trace = open_workload(s, m);
    if (!trace.ok()) return trace.error();
    auto demand = measure_trace_demand(*trace.value(), 60, 20000, model_seed(s.seed, m));
    if (!demand.ok()) return invalid_argument(s.file + ": " + model_key(s, m) + "workload: " + demand.error().message);
    SustainableRateOptions o;
    o.seed = s.seed;
    o.attainment_target = s.slo_attainment;
    const auto lengths = empirical_lengths(demand.value().length_sample.empty()
                                               ? std::vector<TokenLengths>{{1, 1}}
                                               : demand.value().length_sample);
    for (std::size_t v = 0; v < p.fleets[m].variants.size(); ++v)
      p.sustainable_rps.push_back(sustainable_rate(p.fleets[m], v, lengths, s.slo, o).rate_rps);
  }
  return std::nullopt;
}

// The best static fleet of each model on its own (no budget).
std::optional<Error> add_static_fleet(PreparedScenario& p) {
  const Scenario& s = p.scenario;
  double gpu_hours = 0;
  bool all_meet = true;
  for (std::size_t m = 0; m < s.models.size(); ++m) {
    StaticFleetOptions o;
    o.seed = model_seed(s.seed, m);
    o.attainment_target = s.slo_attainment;
    auto fixed = best_static_fleet(p.fleets[m], [&s, m] { return open_workload(s, m); }, s.slo, o);
    if (!fixed.ok()) return invalid_argument(s.file + ": " + model_key(s, m) + "workload: " + fixed.error().message);
    gpu_hours += fixed.value().best.gpu_hours;
    all_meet = all_meet && fixed.value().best.meets;
    for (int n : fixed.value().best.replicas) p.static_replicas.push_back(n);
  }
  if (all_meet) p.static_gpu_hours = gpu_hours;
  return std::nullopt;
}

}  // namespace

Result<std::unique_ptr<TraceSource>> open_workload(const Scenario& s, std::size_t model) {
  if (model >= s.models.size()) return invalid_argument(s.file + ": no model " + std::to_string(model));
  const WorkloadSpec& w = s.models[model].workload;
  const std::uint64_t seed = model_seed(s.seed, model);
  std::unique_ptr<TraceSource> source;
  if (w.generator == "trace") {
    TraceOptions o;
    o.window_from_s = w.window_from_s;
    if (w.window_to_s >= 0) o.window_to_s = w.window_to_s;
    if (w.params.count("speedup")) o.speedup = w.params.at("speedup");
    if (w.params.count("rate_scale")) o.rate_scale = w.params.at("rate_scale");
    o.seed = seed;
    auto opened = open_trace(w.trace_path, o);
    if (!opened.ok()) return invalid_argument(s.file + ": " + model_key(s, model) + "workload.path: " + opened.error().message);
    source = std::move(opened).value();
  } else {
    source = std::make_unique<SyntheticTrace>(rate_curve(w), s.duration_s, length_source(w.lengths), seed);
  }
  return std::unique_ptr<TraceSource>(std::make_unique<CutTrace>(std::move(source), s.duration_s));
}

PolicySettings policy_settings(const PreparedScenario& p) {
  const Scenario& s = p.scenario;
  PolicySettings settings;
  settings.slo = s.slo;
  settings.slo_attainment = s.slo_attainment;
  settings.scale_down_cooldown_s = s.scale_down_cooldown_s;
  settings.scale_to_zero_retention_s = s.scale_to_zero_retention_s;
  settings.gpu_budget = s.gpu_budget;
  settings.pd_band = s.policy.pd_band;
  settings.max_step_up = s.policy.max_step_up;
  settings.max_step_down = s.policy.max_step_down;
  if (s.policy.hpa_target > 0) settings.hpa_target_per_replica = s.policy.hpa_target;
  return with_fleet_settings(settings, p.fleets, {.hpa_target = s.policy.hpa_target > 0});
}

PolicyConfig policy_config(const PreparedScenario& p) { return policy_config(policy_settings(p)); }

Result<PreparedScenario> prepare_scenario(Scenario scenario, const ScenarioOverrides& overrides) {
  if (overrides.duration_s) scenario.duration_s = *overrides.duration_s;
  if (overrides.seed) scenario.seed = *overrides.seed;
  PreparedScenario p;
  for (std::size_t m = 0; m < scenario.models.size(); ++m) {
    auto fleet = load_fleet_config(scenario.models[m].fleet_path);
    if (!fleet.ok()) return invalid_argument(scenario.file + ": " + model_key(scenario, m) + "fleet: " + fleet.error().message);
    for (std::size_t other = 0; other < m; ++other)
      if (p.fleets[other].model == fleet.value().model)
        return invalid_argument(scenario.file + ": " + model_key(scenario, m) + "fleet: model '" + fleet.value().model +
                                "' is already models[" + std::to_string(other) + "]'s; each model needs its own");
    p.fleets.push_back(std::move(fleet).value());
  }
  p.scenario = std::move(scenario);
  if (any_check(p.scenario, &CheckInfo::needs_oracle))
    if (auto e = add_oracle(p)) return *e;
  if (any_check(p.scenario, &CheckInfo::needs_per_replica_rate))
    if (auto e = add_sustainable_rates(p)) return *e;
  if (overrides.static_fleet)
    if (auto e = add_static_fleet(p)) return *e;
  return p;
}

Result<ScenarioResult> run_scenario(const PreparedScenario& prepared, Policy& policy,
                                    HarnessOptions::TickObserver on_tick) {
  const Scenario& s = prepared.scenario;
  std::vector<ModelInput> models;
  for (std::size_t m = 0; m < s.models.size(); ++m) {
    auto trace = open_workload(s, m);
    if (!trace.ok()) return trace.error();
    models.push_back({prepared.fleets.at(m), std::move(trace).value(), s.models[m].priority});
  }
  HarnessOptions o;
  o.tick_s = s.tick_s;
  o.slo = s.slo;
  o.seed = s.seed;
  o.min_duration_s = s.duration_s;
  o.metrics_gap = s.metrics_gap;
  o.on_tick = std::move(on_tick);
  auto run = run_policy(policy, std::move(models), o);
  if (!run.ok()) return invalid_argument(s.file + ": " + run.error().message);
  ScenarioResult r;
  r.scenario = s.name;
  r.policy = policy.name();
  r.seed = s.seed;
  r.run = std::move(run).value();
  r.gpu_hours = r.run.report.gpu_hours;
  r.static_gpu_hours = prepared.static_gpu_hours;
  r.error = r.run.error;
  const CheckContext context{s, prepared.fleets, r.run, prepared.oracle_gpu_hours, prepared.oracle_peak_replicas,
                             prepared.sustainable_rps};
  r.passed = r.error.empty();
  for (const CheckSpec& spec : s.checks) {
    r.checks.push_back(evaluate_check(spec, context));
    r.passed = r.passed && r.checks.back().passed;
  }
  return r;
}

Result<ScenarioResult> run_scenario(const PreparedScenario& prepared, const std::string& policy_name,
                                    HarnessOptions::TickObserver on_tick) {
  auto policy = make_policy(policy_name, policy_config(prepared));
  if (!policy.ok()) return policy.error();
  auto r = run_scenario(prepared, *policy.value(), std::move(on_tick));
  if (r.ok()) r.value().policy = policy_name;
  return r;
}

nlohmann::json scenario_results_json(const std::vector<ScenarioResult>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const ScenarioResult& r : results) {
    nlohmann::json checks = nlohmann::json::array();
    for (const CheckResult& c : r.checks) {
      const nlohmann::json value = std::isfinite(c.value) ? nlohmann::json(c.value) : nlohmann::json(nullptr);
      checks.push_back({{"name", c.name}, {"value", value}, {"limit", c.limit}, {"passed", c.passed}});
    }
    const bool has_static = r.static_gpu_hours && *r.static_gpu_hours > 0;
    out.push_back({{"scenario", r.scenario},
                   {"policy", r.policy},
                   {"seed", r.seed},
                   {"passed", r.passed},
                   {"gpu_hours", r.gpu_hours},
                   {"static_gpu_hours", has_static ? nlohmann::json(*r.static_gpu_hours) : nlohmann::json(nullptr)},
                   {"vs_static", has_static ? nlohmann::json(r.gpu_hours / *r.static_gpu_hours) : nlohmann::json(nullptr)},
                   {"checks", checks}});
  }
  return {{"scenarios", out}};
}

}  // namespace capstan::sim
