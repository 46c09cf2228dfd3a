// sim/scenario_runner.*: a scenario file runs through the harness for a registered
// policy, deterministically for its seed; the harness's metrics-gap hook blanks what
// the policy sees in the window and nothing else.
#include "sim/scenario_runner.hpp"

#include <catch2/catch.hpp>

#include "domain/policies/fixed_policy.hpp"
#include "domain/stages/metric_guard.hpp"

using namespace capstan;
using namespace capstan::sim;

namespace {

const std::string kTestDir = std::string(CAPSTAN_TEST_DATA_DIR) + "/scenarios";

PreparedScenario prepared(const std::string& name, ScenarioOverrides overrides = {}) {
  auto s = load_scenario(kTestDir + "/" + name + ".yaml");
  REQUIRE(s.ok());
  auto p = prepare_scenario(s.value(), overrides);
  REQUIRE(p.ok());
  return p.value();
}

// Records what it saw; holds every variant.
class Recorder : public FixedPolicy {
 public:
  std::vector<Decision> tick(const TickInput& input) override {
    seen.push_back(input);
    return FixedPolicy::tick(input);
  }
  std::vector<TickInput> seen;
};

}  // namespace

TEST_CASE("A scenario run is identical for the same seed, down to the JSON bytes") {
  const auto p = prepared("tiny-pass");
  auto a = run_scenario(p, "hybrid");
  auto b = run_scenario(p, "hybrid");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(scenario_results_json({a.value()}).dump() == scenario_results_json({b.value()}).dump());
  CHECK(a.value().run.series.size() == b.value().run.series.size());
  CHECK(a.value().policy == "hybrid");
  CHECK(a.value().scenario == "tiny-pass");
}

TEST_CASE("A scenario runs for its whole duration, and the duration override shortens it") {
  const auto full = run_scenario(prepared("tiny-pass"), "fixed");
  REQUIRE(full.ok());
  CHECK(full.value().run.series.back().time_s >= 300);
  const auto short_run = run_scenario(prepared("tiny-pass", {120.0, std::nullopt, true}), "fixed");
  REQUIRE(short_run.ok());
  CHECK(short_run.value().run.report.requests < full.value().run.report.requests / 2 + 1);
}

TEST_CASE("The metrics gap blanks the pods and forward passes the policy sees, only inside the window") {
  auto p = prepared("tiny-pass");
  p.scenario.metrics_gap = MetricsGap{90, 180, MetricsGapKind::kMissing};
  Recorder policy;
  REQUIRE(run_scenario(p, policy).ok());
  for (const TickInput& in : policy.seen) {
    INFO("t = " << in.now_s);
    const auto& v = in.models[0].variants[0];
    const bool gap = in.now_s >= 90 && in.now_s < 180;
    CHECK(v.state.pods.empty() == gap);
    if (gap) CHECK(v.forward_passes.empty());
    CHECK(v.state.current_replicas == 2);
  }
}

TEST_CASE("A NaN metrics gap keeps the pods but every value is NaN") {
  TickInput input;
  input.models.resize(1);
  input.models[0].variants.resize(1);
  input.models[0].variants[0].state.pods.resize(2);
  blank_metrics(input, true);
  for (const PodMetrics& pod : input.models[0].variants[0].state.pods) {
    CHECK(std::isnan(pod.avg_ttft_ms));
    CHECK(std::isnan(pod.kv_usage));
    CHECK(std::isnan(pod.queue_length));
  }
}

namespace {

// tiny-pass with a second model: the same fleet file under another model name.
PreparedScenario two_models() {
  auto p = prepared("tiny-pass");
  p.scenario.models.push_back(p.scenario.models[0]);
  p.scenario.models[0].priority = 2;
  p.scenario.gpu_budget = 16;
  p.fleets.push_back(p.fleets[0]);
  p.fleets[1].model = "other-model";
  return p;
}

}  // namespace

TEST_CASE("Every model of a scenario runs in one harness run, with its priority, under the scenario's budget") {
  const auto p = two_models();
  CHECK(policy_config(p).gpu_budget == 16);
  CHECK(policy_config(p).client_timeout_s == 60);  // the fleets' own, as an operator configures it
  Recorder policy;
  auto r = run_scenario(p, policy);
  REQUIRE(r.ok());
  REQUIRE_FALSE(policy.seen.empty());
  for (const TickInput& in : policy.seen) {
    REQUIRE(in.models.size() == 2);
    CHECK(in.models[0].model.model_id == "test-model");
    CHECK(in.models[0].priority == 2);
    CHECK(in.models[1].model.model_id == "other-model");
    CHECK(in.models[1].priority == 1);
  }
  const PolicyRun& run = r.value().run;
  CHECK(run.variants == std::vector<std::string>{"test-model/h100", "other-model/h100"});
  CHECK(run.report.requests == run.models[0].report.requests + run.models[1].report.requests);
}

TEST_CASE("Each model's generated workload has its own seed") {
  const auto p = two_models();
  auto a = open_workload(p.scenario, 0);
  auto b = open_workload(p.scenario, 1);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto first_a = a.value()->next();
  auto first_b = b.value()->next();
  REQUIRE(first_a.ok());
  REQUIRE(first_b.ok());
  CHECK(first_a.value()->arrival_s != first_b.value()->arrival_s);
  CHECK_FALSE(open_workload(p.scenario, 2).ok());
}

TEST_CASE("Two models of a scenario that are the same model fail to prepare, naming both") {
  auto s = load_scenario(kTestDir + "/tiny-pass.yaml");
  REQUIRE(s.ok());
  s.value().models.push_back(s.value().models[0]);
  auto p = prepare_scenario(s.value());
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.error().message, Catch::Contains("tiny-pass.yaml: models[1].fleet: model 'test-model' is already "
                                                "models[0]'s; each model needs its own"));
}

TEST_CASE("A stale metrics gap in a scenario reaches the policy as aged pods") {
  auto p = prepared("tiny-pass");
  p.scenario.metrics_gap = MetricsGap{90, 180, MetricsGapKind::kStale};
  Recorder policy;
  REQUIRE(run_scenario(p, policy).ok());
  for (const TickInput& in : policy.seen) {
    INFO("t = " << in.now_s);
    const auto& pods = in.models[0].variants[0].state.pods;
    REQUIRE_FALSE(pods.empty());
    const bool gap = in.now_s >= 90 && in.now_s < 180;
    CHECK(pods[0].sample_age_s == (gap ? in.now_s - 60 : 0));
    // The metric guard, given twice the tick, rejects the samples from the third tick
    // of the gap on (90 s old at 150 s) and takes them again once fresh.
    const auto why = unusable_metrics(in.models[0].variants[0].state, max_sample_age_s(in.interval_s));
    CHECK(why.has_value() == (in.now_s == 150));
    if (why) CHECK(why->text() == "metrics stale: newest sample 90 s old (limit 60 s)");
  }
}

TEST_CASE("The oracle sizes each replica for the SLO's attainment: a stricter promise, a lower rate per replica") {
  auto s = load_scenario(kTestDir + "/tiny-pass.yaml");
  REQUIRE(s.ok());
  s.value().checks.push_back({"gpu_hours_vs_oracle", 10, {}});
  s.value().checks.push_back({"ramp_lead_s", -1e9, {{"from_s", 0}, {"to_s", 60}}});  // needs the per-replica rates
  s.value().slo_attainment = 0.8;
  auto loose = prepare_scenario(s.value());
  s.value().slo_attainment = 0.999;
  auto strict = prepare_scenario(s.value());
  REQUIRE(loose.ok());
  REQUIRE(strict.ok());
  REQUIRE(loose.value().sustainable_rps.size() == strict.value().sustainable_rps.size());
  REQUIRE_FALSE(loose.value().sustainable_rps.empty());
  for (std::size_t v = 0; v < loose.value().sustainable_rps.size(); ++v) {
    INFO("variant " << v << ": " << loose.value().sustainable_rps[v] << " vs " << strict.value().sustainable_rps[v]);
    CHECK(strict.value().sustainable_rps[v] < loose.value().sustainable_rps[v]);
  }
  CHECK(*strict.value().oracle_gpu_hours >= *loose.value().oracle_gpu_hours);
}

TEST_CASE("Each tick counts the requests that arrived in it and met the SLO, however late they finished") {
  const auto r = run_scenario(prepared("tiny-pass"), "fixed");
  REQUIRE(r.ok());
  long long arrived = 0, met = 0;
  for (const TickRecord& t : r.value().run.series) {
    CHECK(t.arrived_met_slo <= t.arrived - t.arrived_failed);
    arrived += t.arrived;
    met += t.arrived_met_slo;
  }
  REQUIRE(arrived == r.value().run.report.requests);
  REQUIRE(met > 0);
  // The run's attainment is over finished requests; every one of this light run finishes.
  CHECK(static_cast<double>(met) / static_cast<double>(arrived) == Approx(r.value().run.report.slo_attainment));
}

TEST_CASE("A scenario's SLO attainment is the share of requests hybrid lets its latency tails miss") {
  auto p = prepared("tiny-pass");
  p.scenario.slo_attainment = 0.99;
  CHECK(policy_config(p).tail_probability == Approx(0.01));
  p.scenario.slo_attainment = 0.9;
  CHECK(policy_config(p).tail_probability == Approx(0.1));
}
