// sim/scenario.*: the shipped scenario files load; bad files fail with the file, the
// key and the rule in the message.
#include "sim/scenario.hpp"
#include "sim/synthetic_trace.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace capstan::sim;

namespace {

const std::string kShipped = std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios";
const std::string kTestDir = std::string(CAPSTAN_TEST_DATA_DIR) + "/scenarios";

// A scenario file next to the test fleet, so its relative fleet path resolves.
class TempScenario {
 public:
  explicit TempScenario(const std::string& text)
      : path_(kTestDir + "/tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) + ".yml") {
    std::ofstream(path_) << text;
  }
  ~TempScenario() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

const std::string kGood = R"(name: t
fleet: fleets/small.yaml
workload: {generator: poisson, rate_rps: 2}
duration_s: 120
checks:
  - {check: slo_attainment, limit: 0.9}
)";

std::string load_error(const std::string& text) {
  TempScenario f(text);
  auto s = load_scenario(f.path());
  REQUIRE_FALSE(s.ok());
  const std::string message = s.error().message;
  CHECK(message.rfind(f.path() + ": ", 0) == 0);  // names the file first
  return message;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("Every shipped scenario file loads, names unique, sorted by name") {
  auto all = load_scenarios(kShipped);
  INFO((all.ok() ? "" : all.error().message));
  REQUIRE(all.ok());
  std::vector<std::string> names;
  for (const auto& s : all.value()) names.push_back(s.name);
  for (const char* expected : {"budget", "burst", "diurnal", "idle", "metrics-gap", "metrics-stale", "slow-start", "steady"})
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  CHECK(std::is_sorted(names.begin(), names.end()));
  // The compressed days, outside the default suite, load as well.
  auto compressed = load_scenarios(kShipped + "/compressed");
  INFO((compressed.ok() ? "" : compressed.error().message));
  REQUIRE(compressed.ok());
  REQUIRE(compressed.value().size() == 2);
  CHECK(compressed.value()[0].name == "diurnal-2x");
  CHECK(compressed.value()[1].name == "diurnal-6x");
}

TEST_CASE("An slo_attainment check without a limit takes the scenario's SLO attainment") {
  TempScenario f(replace(kGood, "{check: slo_attainment, limit: 0.9}", "{check: slo_attainment}") +
                 "slo: {ttft_ms: 2000, itl_ms: 100, attainment: 0.99}\n");
  auto s = load_scenario(f.path());
  INFO((s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  CHECK(s.value().checks.at(0).limit == 0.99);
  // Every other check still needs its limit.
  CHECK_THAT(load_error(replace(kGood, "{check: slo_attainment, limit: 0.9}", "{check: oscillations}")),
             Catch::Contains("checks[0].limit"));
}

TEST_CASE("A scenario resolves its fleet path against its own folder and keeps its settings") {
  TempScenario f(kGood + "metrics_gap: {from_s: 30, to_s: 60, kind: nan}\nscale_to_zero_retention_s: 600\n");
  auto s = load_scenario(f.path());
  INFO((s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  REQUIRE(s.value().models.size() == 1);
  CHECK(s.value().models[0].fleet_path == kTestDir + "/fleets/small.yaml");
  CHECK(s.value().models[0].workload.params.at("rate_rps") == 2);
  CHECK(s.value().models[0].priority == 1);
  CHECK(s.value().gpu_budget == 0);
  CHECK(s.value().tick_s == 30);
  REQUIRE(s.value().metrics_gap.has_value());
  CHECK(s.value().metrics_gap->kind == MetricsGapKind::kNaN);
  CHECK(s.value().scale_to_zero_retention_s == 600);
  CHECK(s.value().slo_attainment == 0.95);  // the SLO's promise when the file names none
}

TEST_CASE("A scenario SLO may leave one metric unconstrained with 0, but not both") {
  TempScenario f(kGood + "slo: {ttft_ms: 0, itl_ms: 80}\n");
  auto s = load_scenario(f.path());
  REQUIRE(s.ok());
  CHECK(s.value().slo == capstan::SloTargets{0, 80});
  CHECK_THAT(load_error(kGood + "slo: {ttft_ms: 0, itl_ms: 0}\n"),
             Catch::Contains("slo.ttft_ms or itl_ms must be > 0"));
}

TEST_CASE("slo.attainment is the SLO's promise, in 0.5..0.9999") {
  TempScenario f(kGood + "slo: {ttft_ms: 1500, itl_ms: 80, attainment: 0.99}\n");
  auto s = load_scenario(f.path());
  REQUIRE(s.ok());
  CHECK(s.value().slo.ttft_ms == 1500);
  CHECK(s.value().slo_attainment == 0.99);
  CHECK_THAT(load_error(kGood + "slo: {attainment: 1}\n"), Catch::Contains("slo.attainment must be <= 0.9999, got 1"));
  CHECK_THAT(load_error(kGood + "slo: {attainment: 0.2}\n"), Catch::Contains("slo.attainment must be >= 0.5, got 0.2"));
  CHECK_THAT(load_error(kGood + "slo: {attainment: most}\n"), Catch::Contains("slo.attainment must be a number"));
}

TEST_CASE("Scenario schema errors name the file, the key and the rule") {
  CHECK_THAT(load_error(kGood + "durations: 3\n"), Catch::Contains("durations is not a known key"));
  CHECK_THAT(load_error(replace(kGood, "fleet: fleets/small.yaml\n", "")), Catch::Contains("fleet is required"));
  CHECK_THAT(load_error(replace(kGood, "fleets/small.yaml", "fleets/none.yaml")),
             Catch::Contains("fleet must name an existing file, got 'fleets/none.yaml'"));
  CHECK_THAT(load_error(replace(kGood, "duration_s: 120", "duration_s: -5")),
             Catch::Contains("duration_s must be >= 1, got -5"));
  CHECK_THAT(load_error(replace(kGood, "generator: poisson", "generator: zipf")),
             Catch::Contains("workload.generator must be one of"));
  CHECK_THAT(load_error(replace(kGood, "rate_rps: 2", "rate: 2")),
             Catch::Contains("workload.rate is not a known key"));
  CHECK_THAT(load_error(replace(kGood, "rate_rps: 2", "rate_rps: fast")),
             Catch::Contains("workload.rate_rps must be a number, got 'fast'"));
  CHECK_THAT(load_error(replace(kGood, "{generator: poisson, rate_rps: 2}", "{generator: step, steps: [[60, 1], [0, 2]]}")),
             Catch::Contains("workload.steps[1] must start after the previous step"));
  CHECK_THAT(load_error(replace(kGood, "check: slo_attainment", "check: vibes")),
             Catch::Contains("checks[0].check must be one of"));
  CHECK_THAT(load_error(replace(kGood, "limit: 0.9", "limit: high")),
             Catch::Contains("checks[0].limit must be a number, got 'high'"));
  CHECK_THAT(load_error(replace(kGood, "{check: slo_attainment, limit: 0.9}", "{check: ttft_recovery_s, limit: 60, at_s: 30}")),
             Catch::Contains("checks[0].until_s is required"));
  CHECK_THAT(load_error(replace(kGood, "limit: 0.9", "limit: 0.9, after_s: 3")),
             Catch::Contains("checks[0].after_s is not a known key"));
  CHECK_THAT(load_error(kGood + "metrics_gap: {from_s: 60, to_s: 30}\n"),
             Catch::Contains("metrics_gap.to_s must be > from_s"));
  CHECK_THAT(load_error(kGood + "metrics_gap: {from_s: 30, to_s: 60, kind: frozen}\n"),
             Catch::Contains("metrics_gap.kind must be one of missing, nan, stale, got 'frozen'"));
  CHECK_THAT(load_error(replace(kGood, "rate_rps: 2}", "rate_rps: 2, lengths: {input_mean: 0}}")),
             Catch::Contains("workload.lengths.input_mean must be >= 1, got 0"));
  CHECK_THAT(load_error(replace(kGood, "checks:\n  - {check: slo_attainment, limit: 0.9}\n", "")),
             Catch::Contains("checks must be a non-empty list"));
}

namespace {

const std::string kTwoModels = R"(name: t2
models:
  - {fleet: fleets/small.yaml, workload: {generator: poisson, rate_rps: 2}, priority: 3}
  - fleet: fleets/small.yaml
    workload: {generator: step, steps: [[0, 1], [60, 4]]}
gpu_budget: 16
duration_s: 120
checks:
  - {check: budget_exceeded_gpus, limit: 0}
  - {check: slo_attainment, limit: 0.5, model: 1}
)";

}  // namespace

TEST_CASE("A scenario of several models keeps each model's fleet, workload and priority, and the GPU budget") {
  TempScenario f(kTwoModels);
  auto s = load_scenario(f.path());
  INFO((s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  REQUIRE(s.value().models.size() == 2);
  CHECK(s.value().models[0].fleet_path == kTestDir + "/fleets/small.yaml");
  CHECK(s.value().models[0].priority == 3);
  CHECK(s.value().models[0].workload.generator == "poisson");
  CHECK(s.value().models[1].priority == 1);
  CHECK(s.value().models[1].workload.steps.size() == 2);
  CHECK(s.value().gpu_budget == 16);
  CHECK(s.value().checks[1].params.at("model") == 1);
}

TEST_CASE("Errors in a several-model scenario name the model's key") {
  CHECK_THAT(load_error(kTwoModels + "fleet: fleets/small.yaml\n"),
             Catch::Contains("fleet cannot be combined with models (give each model its own)"));
  CHECK_THAT(load_error(replace(kTwoModels, "priority: 3", "priority: 0")),
             Catch::Contains("models[0].priority must be >= 1, got 0"));
  CHECK_THAT(load_error(replace(kTwoModels, "  - fleet: fleets/small.yaml\n", "  - fleet: fleets/none.yaml\n")),
             Catch::Contains("models[1].fleet must name an existing file, got 'fleets/none.yaml'"));
  CHECK_THAT(load_error(replace(kTwoModels, "generator: step", "generator: zipf")),
             Catch::Contains("models[1].workload.generator must be one of"));
  CHECK_THAT(load_error(replace(kTwoModels, "    workload: {generator: step, steps: [[0, 1], [60, 4]]}\n", "")),
             Catch::Contains("models[1].workload is required"));
  CHECK_THAT(load_error(replace(kTwoModels, "priority: 3}", "priority: 3, weight: 2}")),
             Catch::Contains("models[0].weight is not a known key"));
  CHECK_THAT(load_error(replace(kTwoModels, "rate_rps: 2}", "rate_rps: 2, lengths: {output_cv: -1}}")),
             Catch::Contains("models[0].workload.lengths.output_cv must be >= 0, got -1"));
  CHECK_THAT(load_error(replace(kTwoModels, "rate_rps: 2}", "rate_rps: 2, lengths: {input_mean: 4000, input_max: 2048}}")),
             Catch::Contains("models[0].workload.lengths.input_max must be at least input_mean (4000)"));
  CHECK_THAT(load_error(replace(kTwoModels, "gpu_budget: 16", "gpu_budget: -4")),
             Catch::Contains("gpu_budget must be >= 0, got -4"));
  CHECK_THAT(load_error(replace(kTwoModels, "gpu_budget: 16\n", "")),
             Catch::Contains("checks[0].check budget_exceeded_gpus needs gpu_budget > 0, got 0"));
  CHECK_THAT(load_error(replace(kTwoModels, "model: 1}", "model: 2}")),
             Catch::Contains("checks[1].model must be a model index below 2, got 2"));
  CHECK_THAT(load_error(replace(kTwoModels, "model: 1}", "model: 0.5}")),
             Catch::Contains("checks[1].model must be a model index below 2, got 0.5"));
  CHECK_THAT(load_error(replace(kTwoModels, "model: 1}", "model: 1, from_s: 30}")),
             Catch::Contains("checks[1].from_s counts the requests of every model: give it or model, not both"));
  CHECK_THAT(load_error(replace(kTwoModels, "model: 1}", "from_s: 120}")),
             Catch::Contains("checks[1].from_s must be below duration_s (120), got 120"));
  const std::string not_a_list = "name: t\nmodels: {fleet: fleets/small.yaml}\nduration_s: 60\n"
                                 "checks:\n  - {check: slo_attainment, limit: 0}\n";
  CHECK_THAT(load_error(not_a_list), Catch::Contains("models must be a non-empty list"));
  CHECK_THAT(load_error(replace(not_a_list, "{fleet: fleets/small.yaml}", "[3]")),
             Catch::Contains("models[0] must be a mapping"));
}

TEST_CASE("A stale metrics gap is a kind of its own") {
  TempScenario f(kGood + "metrics_gap: {from_s: 30, to_s: 60, kind: stale}\n");
  auto s = load_scenario(f.path());
  REQUIRE(s.ok());
  REQUIRE(s.value().metrics_gap.has_value());
  CHECK(s.value().metrics_gap->kind == MetricsGapKind::kStale);
}

TEST_CASE("A scenario's policy key sets the P:D band and the step limits of every policy it runs") {
  TempScenario f(kGood + "policy: {pd_band: [0.4, 1.0], max_step_up: 2, max_step_down: 1, hpa_target: 10}\n");
  auto s = load_scenario(f.path());
  INFO((s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  CHECK(s.value().policy.pd_band == capstan::RatioBand{0.4, 1.0});
  CHECK(s.value().policy.max_step_up == 2);
  CHECK(s.value().policy.max_step_down == 1);
  CHECK(s.value().policy.hpa_target == 10);
  TempScenario none(kGood);
  auto plain = load_scenario(none.path());
  REQUIRE(plain.ok());
  CHECK(plain.value().policy.pd_band == capstan::RatioBand{});
  CHECK(plain.value().policy.max_step_up == 0);
}

TEST_CASE("Bad policy keys in a scenario name the file, the key and the rule") {
  CHECK_THAT(load_error(kGood + "policy: {pd_band: [1.0, 0.4]}\n"),
             Catch::Contains("policy.pd_band must be a valid band: P:D band minimum 1 is above its maximum 0.4"));
  CHECK_THAT(load_error(kGood + "policy: {pd_band: [-1, 1]}\n"),
             Catch::Contains("policy.pd_band must be a valid band: P:D band bounds must be finite and >= 0"));
  CHECK_THAT(load_error(kGood + "policy: {pd_band: [0, 0]}\n"), Catch::Contains("policy.pd_band must set a bound"));
  CHECK_THAT(load_error(kGood + "policy: {pd_band: 0.5}\n"),
             Catch::Contains("policy.pd_band must be a [min_prefill_per_decode, max_prefill_per_decode] pair"));
  CHECK_THAT(load_error(kGood + "policy: {pd_band: [low, 1]}\n"),
             Catch::Contains("policy.pd_band must be a [min_prefill_per_decode, max_prefill_per_decode] pair"));
  CHECK_THAT(load_error(kGood + "policy: {max_step_up: -1}\n"), Catch::Contains("policy.max_step_up must be >= 0, got -1"));
  CHECK_THAT(load_error(kGood + "policy: {hpa_target: .nan}\n"), Catch::Contains("policy.hpa_target"));
  CHECK_THAT(load_error(kGood + "policy: {predictor: holt}\n"), Catch::Contains("policy.predictor is not a known key"));
  CHECK_THAT(load_error(kGood + "policy: strict\n"), Catch::Contains("policy must be a mapping"));
}

TEST_CASE("A rates workload reads window rates at their midpoints, scaled in time and rate, and names a bad line") {
  const std::string csv = kTestDir + "/tmp-rates-" + std::to_string(::getpid()) + ".csv";
  std::ofstream(csv) << "window_start_s,total_rate_rps\n0,10\n600,20\n1200,5\n";
  const std::string rates = "workload: {generator: rates, path: " + csv + ", time_scale: 6, rate_scale: 2}\n";
  {
    TempScenario f(replace(kGood, "workload: {generator: poisson, rate_rps: 2}\n", rates));
    auto s = load_scenario(f.path());
    REQUIRE(s.ok());
    const auto& points = s.value().models[0].workload.rate_points;
    REQUIRE(points.size() == 3);
    CHECK(points[0] == std::pair<double, double>{50, 20});   // midpoint 300 s / 6, 10 x 2
    CHECK(points[2] == std::pair<double, double>{250, 10});  // the last window as long as the one before
  }
  std::ofstream(csv) << "window_start_s,total_rate_rps\n0,10\n600,lots\n";
  CHECK_THAT(load_error(replace(kGood, "workload: {generator: poisson, rate_rps: 2}\n", rates)),
             Catch::Contains("line 3 must be window_start_s,rate_rps"));
  std::remove(csv.c_str());
}

TEST_CASE("interpolated_rate is linear between points and flat outside them") {
  const RateCurve c = interpolated_rate({{100, 10}, {200, 30}});
  CHECK(c.rate_rps(0) == 10);
  CHECK(c.rate_rps(150) == Approx(20));
  CHECK(c.rate_rps(500) == 30);
  CHECK(c.max_rate_rps == 30);
}
