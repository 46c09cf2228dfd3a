// sim/scenario_checks.*: each check fails the deliberately bad policy it is there to
// catch (a fixed count, an always-scale-up, a flapping, a floor-on-missing-data, a
// budget-blind, a silently capping and a dear-variant-first policy defined here), on
// short in-code scenarios over small simulated fleets.
#include "sim/scenario_checks.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "domain/policies/fixed_policy.hpp"
#include "domain/stages/gpu_budget.hpp"
#include "sim/scenario.hpp"
#include "sim/scenario_runner.hpp"
#include "sim/sim_fixtures.hpp"

using namespace capstan;
using namespace capstan::sim;

namespace {

// Sets each variant's target from (tick index, input variant) -> target.
class TestPolicy : public Policy {
 public:
  using Rule = std::function<int(int tick, const VariantTickInput&)>;
  TestPolicy(std::string name, Rule rule) : name_(std::move(name)), rule_(std::move(rule)) {}
  std::string name() const override { return name_; }
  std::vector<Decision> tick(const TickInput& input) override {
    std::vector<Decision> out;
    for (const auto& m : input.models)
      for (const auto& v : m.variants) {
        const int current = v.state.current_replicas;
        const int target = std::clamp(rule_(ticks_, v), v.state.spec.min_replicas, v.state.spec.max_replicas);
        out.push_back({m.model, v.state.spec.name, current, target, {direction_code(current, target), name_}});
      }
    ++ticks_;
    return out;
  }
  nlohmann::json save_state() const override { return ticks_; }
  Result<bool> restore_state(const nlohmann::json&) override { return true; }

 private:
  std::string name_;
  Rule rule_;
  int ticks_ = 0;
};

TestPolicy always_up() {
  return TestPolicy("always-up", [](int, const VariantTickInput& v) { return v.state.current_replicas + 1; });
}

TestPolicy flapping() {
  return TestPolicy("flapping", [](int k, const VariantTickInput& v) { return v.state.current_replicas + (k % 2 ? -1 : 1); });
}

// Drops to the floor whenever no pod reports: the failure metrics-gap is there for.
TestPolicy floor_on_missing() {
  return TestPolicy("floor-on-missing", [](int, const VariantTickInput& v) {
    return v.state.pods.empty() ? 0 : v.state.current_replicas;
  });
}

PreparedScenario scenario(WorkloadSpec workload, double duration_s, std::vector<CheckSpec> checks, int initial = 2,
                          double cold_start_s = 60) {
  PreparedScenario p;
  p.scenario.name = "test";
  p.scenario.file = "test.yaml";
  p.scenario.models = {{"", std::move(workload), 1}};
  p.scenario.models[0].workload.lengths = {256, 0.5, 32, 0.5};
  p.scenario.duration_s = duration_s;
  p.scenario.tick_s = 30;
  p.scenario.slo = {1000, 100};
  p.scenario.checks = std::move(checks);
  p.fleets = {testing::one_variant_fleet(initial, cold_start_s, 60)};
  return p;
}

WorkloadSpec poisson(double rate_rps) { return {"poisson", {{"rate_rps", rate_rps}}, {}, "", 0, -1, {}, {}}; }
WorkloadSpec steps(std::vector<std::pair<double, double>> s) { return {"step", {}, std::move(s), "", 0, -1, {}, {}}; }

CheckResult only_check(const PreparedScenario& p, Policy& policy) {
  auto r = run_scenario(p, policy);
  REQUIRE(r.ok());
  REQUIRE(r.value().checks.size() == 1);
  return r.value().checks[0];
}

}  // namespace

TEST_CASE("scale_actions_per_window and peak_replicas_vs_oracle fail a policy that always scales up") {
  auto p = scenario(poisson(4), 900, {{"scale_actions_per_window", 1, {{"window_s", 600}}}});
  FixedPolicy fixed;
  auto up = always_up();
  CHECK(only_check(p, fixed).passed);
  const CheckResult bad = only_check(p, up);
  CHECK_FALSE(bad.passed);
  CHECK(bad.value >= 8);  // 2 -> 10 replicas, one per tick
  p.scenario.checks = {{"peak_replicas_vs_oracle", 1.5, {}}};
  p.oracle_peak_replicas = 2;
  CHECK(only_check(p, fixed).value == 1);
  CHECK(only_check(p, up).value == 5);
}

TEST_CASE("oscillations counts up-down-up within the tick span, and none for a fixed count") {
  auto p = scenario(poisson(4), 600, {{"oscillations", 0, {{"within_ticks", 3}}}});
  FixedPolicy fixed;
  auto flap = flapping();
  CHECK(only_check(p, fixed).value == 0);
  const CheckResult bad = only_check(p, flap);
  CHECK_FALSE(bad.passed);
  CHECK(bad.value >= 10);
}

TEST_CASE("time_to_floor_s and idle_gpu_hours fail a policy that holds its replicas after traffic stops") {
  auto p = scenario(steps({{0, 4}, {300, 0}}), 1200, {{"time_to_floor_s", 300, {{"after_s", 300}}}});
  p.scenario.scale_to_zero_retention_s = 120;
  auto down = [] {
    return TestPolicy("to-zero", [](int k, const VariantTickInput& v) { return k >= 12 ? 0 : v.state.current_replicas; });
  };
  FixedPolicy fixed;
  const CheckResult held = only_check(p, fixed);
  CHECK_FALSE(held.passed);
  CHECK(std::isnan(held.value));  // never at the floor
  auto released_policy = down();
  const CheckResult released = only_check(p, released_policy);
  CHECK(released.passed);
  CHECK(released.value == 120);  // decision at t = 390, zero from the t = 420 record
  p.scenario.checks = {{"idle_gpu_hours", 1, {{"after_s", 300}}}};
  FixedPolicy fixed_again;
  CHECK(only_check(p, fixed_again).value == Approx(2 * 4 * 900 / 3600.0));
  auto down_again = down();
  CHECK(only_check(p, down_again).value == Approx(2 * 4 * 90 / 3600.0));  // the 330, 360 and 390 s ticks at 2
}

TEST_CASE("ttft_recovery_s fails a fixed count under a burst it cannot serve and passes one that scales early") {
  auto p = scenario(steps({{0, 3}, {300, 40}, {600, 3}}), 900, {{"ttft_recovery_s", 120, {{"at_s", 300}, {"until_s", 600}}}}, 1, 30);
  p.scenario.models[0].workload.lengths = {256, 0.5, 512, 0.5};  // ~10 req/s per replica: 40 req/s overloads one
  FixedPolicy fixed;
  auto big = TestPolicy("big", [](int, const VariantTickInput&) { return 10; });
  CHECK_FALSE(only_check(p, fixed).passed);
  const CheckResult ok = only_check(p, big);
  INFO(ok.value);
  CHECK(ok.passed);
}

TEST_CASE("queue_response_ticks fails a policy that never asks for capacity once queues form, whatever it says") {
  auto p = scenario(steps({{0, 3}, {300, 40}, {600, 3}}), 900,
                    {{"queue_response_ticks", 1, {{"from_s", 300}, {"to_s", 600}, {"min_queued", 5}}}}, 1, 30);
  p.scenario.models[0].workload.lengths = {256, 0.5, 512, 0.5};  // 40 req/s overloads one replica
  FixedPolicy fixed;
  const CheckResult never = only_check(p, fixed);
  CHECK(std::isinf(never.value));
  CHECK_FALSE(never.passed);
  // Asks for more as soon as it sees a queue, with no reason text at all.
  auto reacts = TestPolicy("", [](int, const VariantTickInput& v) {
    double queued = 0;
    for (const auto& pod : v.state.pods) queued += pod.queue_length;
    return queued >= 5 ? v.state.current_replicas + 2 : v.state.current_replicas;
  });
  const CheckResult quick = only_check(p, reacts);
  INFO(quick.value);
  CHECK(quick.value <= 1);
  CHECK(quick.passed);
  // No queue in the window: nothing was tested, so it is not measurable.
  p.scenario.checks = {{"queue_response_ticks", 1, {{"from_s", 0}, {"to_s", 300}, {"min_queued", 1000}}}};
  CHECK(std::isnan(only_check(p, fixed).value));
}

TEST_CASE("scale_ups_while_loading fails a policy that scales up again while replicas load") {
  auto p = scenario(poisson(4), 600, {{"scale_ups_while_loading", 2, {}}}, 1, 300);
  auto up = always_up();
  auto once = TestPolicy("once", [](int k, const VariantTickInput& v) { return k == 0 ? 3 : v.state.current_replicas; });
  const CheckResult bad = only_check(p, up);
  CHECK_FALSE(bad.passed);
  CHECK(bad.value >= 8);
  CHECK(only_check(p, once).value == 0);
}

TEST_CASE("forecast_error reads the policies' forecast events, and a policy without forecasts is not measurable") {
  auto p = scenario(poisson(4), 1200, {{"forecast_error", 0.25, {{"from_s", 300}}}});
  FixedPolicy fixed;
  const CheckResult none = only_check(p, fixed);
  CHECK(std::isnan(none.value));
  CHECK_FALSE(none.passed);
  // A forecasting policy on flat demand: its forecast one start-up ahead is close to what came.
  auto hybrid = make_policy("hybrid", policy_config(p));
  REQUIRE(hybrid.ok());
  const CheckResult made = only_check(p, *hybrid.value());
  INFO(made.value);
  CHECK(made.value < 0.25);
  CHECK(made.passed);
}

TEST_CASE("below_last_good and metrics_missing_decisions fail a policy that drops to the floor in a metrics gap") {
  auto p = scenario(poisson(4), 600, {{"below_last_good", 0, {{"from_s", 300}, {"to_s", 420}}}}, 3);
  p.scenario.metrics_gap = MetricsGap{300, 420, MetricsGapKind::kMissing};
  auto drop = floor_on_missing();
  FixedPolicy fixed;
  const CheckResult dropped = only_check(p, drop);
  CHECK_FALSE(dropped.passed);
  CHECK(dropped.value == 3);
  CHECK(only_check(p, fixed).passed);
  p.scenario.checks = {{"metrics_missing_decisions", 1, {{"from_s", 300}, {"to_s", 420}}}};
  CHECK_FALSE(only_check(p, drop).passed);
  p.scenario.checks = {{"resume_ticks", 2, {{"at_s", 420}}}};
  CHECK(only_check(p, fixed).value == 0);
}

TEST_CASE("A policy's verdict is every check passing, the JSON carries exactly the issue's field names") {
  auto p = scenario(poisson(4), 300, {{"slo_attainment", 0.5, {}}, {"slo_attainment", 1.5, {}}});
  FixedPolicy fixed;
  auto r = run_scenario(p, fixed);
  REQUIRE(r.ok());
  CHECK(r.value().checks[0].passed);
  CHECK_FALSE(r.value().checks[1].passed);
  CHECK_FALSE(r.value().passed);
  const auto j = scenario_results_json({r.value()});
  const auto& row = j.at("scenarios").at(0);
  CHECK(row.size() == 8);  // the four, the seed, and the run's GPU-hours beside the best static fleet's
  for (const char* key : {"seed", "gpu_hours", "static_gpu_hours", "vs_static"}) CHECK(row.contains(key));
  CHECK(row.at("scenario") == "test");
  CHECK(row.at("policy") == "fixed");
  CHECK(row.at("passed") == false);
  for (const auto& c : row.at("checks")) {
    CHECK(c.size() == 4);
    for (const char* key : {"name", "value", "limit", "passed"}) CHECK(c.contains(key));
  }
}

namespace {

// Every decision of a tick from the whole input, for policies that look across models.
class WholeInputPolicy : public Policy {
 public:
  using Rule = std::function<std::vector<Decision>(const TickInput&)>;
  WholeInputPolicy(std::string name, Rule rule) : name_(std::move(name)), rule_(std::move(rule)) {}
  std::string name() const override { return name_; }
  std::vector<Decision> tick(const TickInput& input) override { return rule_(input); }
  nlohmann::json save_state() const override { return nullptr; }
  Result<bool> restore_state(const nlohmann::json&) override { return true; }

 private:
  std::string name_;
  Rule rule_;
};

constexpr int kBudget = 24;  // GPUs: six replicas of four

// Two models, "hi" (priority 2) and "lo", each with a cheap variant (one warm replica,
// at most 3) and a dear one (none, at most 10), four GPUs a replica; cheap sustains the
// same rate for a third of the price.
PreparedScenario budget_scenario(std::vector<CheckSpec> checks, int gpu_budget = kBudget) {
  PreparedScenario p = scenario(poisson(4), 600, std::move(checks), 1, 30);
  p.scenario.gpu_budget = gpu_budget;
  p.scenario.models.push_back(p.scenario.models[0]);
  p.scenario.models[0].priority = 2;
  p.fleets.clear();
  for (const char* model : {"hi", "lo"}) {
    FleetConfig f = testing::one_variant_fleet(1, 30, 60);
    f.model = model;
    f.variants[0].name = "cheap";
    f.variants[0].max_replicas = 3;
    VariantConfig dear = f.variants[0];
    dear.name = "dear";
    dear.cost_per_replica_hour = 6;
    dear.initial_replicas = 0;
    dear.max_replicas = 10;
    f.variants.push_back(dear);
    p.fleets.push_back(f);
  }
  p.sustainable_rps = {10, 10, 10, 10};
  return p;
}

// Every variant wants one more replica each tick; the GPU budget stage shares them out.
// `say_so` false: the budget's cuts are passed off as plain holds and scale-ups.
WholeInputPolicy one_more_each_budgeted(bool say_so) {
  return WholeInputPolicy(say_so ? "budgeted" : "silent-cap", [say_so](const TickInput& input) {
    std::vector<ModelPlan> plans;
    for (const auto& m : input.models) {
      ModelPlan plan{m.model, static_cast<double>(m.priority), {}};
      for (const auto& v : m.variants) {
        const int current = v.state.current_replicas;
        const int want = std::min(current + 1, v.state.spec.max_replicas);
        plan.requests.push_back({{v.state.spec.name, current, want, {direction_code(current, want), "one more"}},
                                 v.state.spec.gpus_per_replica});
      }
      plans.push_back(std::move(plan));
    }
    auto shared = share_gpu_budget(plans, kBudget);
    REQUIRE(shared.ok());
    std::vector<Decision> out = shared.value();
    if (!say_so)
      for (Decision& d : out)
        d.reason = {direction_code(d.current_replicas, d.target_replicas), "capped"};
    return out;
  });
}

// Scales the named variant of every model up by one each tick, holds the others.
WholeInputPolicy grow(const std::string& variant, ReasonCode code = ReasonCode::kScaleUp) {
  return WholeInputPolicy("grow-" + variant, [variant, code](const TickInput& input) {
    std::vector<Decision> out;
    for (const auto& m : input.models)
      for (const auto& v : m.variants) {
        const int current = v.state.current_replicas;
        const int target = v.state.spec.name == variant ? current + 1 : current;
        out.push_back({m.model, v.state.spec.name, current, target,
                       {target > current ? code : ReasonCode::kHold, "grow " + variant}});
      }
    return out;
  });
}

// Fills the cheap variant to its maximum, then adds to the dear one.
WholeInputPolicy cheap_then_dear() {
  return WholeInputPolicy("cheap-then-dear", [](const TickInput& input) {
    std::vector<Decision> out;
    for (const auto& m : input.models) {
      const bool cheap_full = m.variants[0].state.current_replicas >= m.variants[0].state.spec.max_replicas;
      for (const auto& v : m.variants) {
        const int current = v.state.current_replicas;
        const bool grows = v.state.spec.name == "cheap" ? !cheap_full : cheap_full;
        const int target = grows ? current + 1 : current;
        out.push_back({m.model, v.state.spec.name, current, target, {direction_code(current, target), "fill"}});
      }
    }
    return out;
  });
}

}  // namespace

TEST_CASE("budget_exceeded_gpus fails a budget-blind policy and passes one that goes through the budget stage") {
  auto p = budget_scenario({{"budget_exceeded_gpus", 0, {}}});
  auto up = always_up();
  const CheckResult blind = only_check(p, up);
  CHECK_FALSE(blind.passed);
  CHECK(blind.value >= 4 * 4 * 3);  // by the end far past six replicas
  auto budgeted = one_more_each_budgeted(true);
  const CheckResult kept = only_check(p, budgeted);
  CHECK(kept.passed);
  CHECK(kept.value == 0);  // it fills the budget exactly
  FixedPolicy fixed;
  CHECK(only_check(p, fixed).value == 2 * 4 - kBudget);  // never near it
}

TEST_CASE("budget_blocked_reasons counts budget reasons at the budget, a silent cap and a false claim score 0") {
  auto p = budget_scenario({{"budget_blocked_reasons", 1, {}}});
  auto budgeted = one_more_each_budgeted(true);
  const CheckResult said = only_check(p, budgeted);
  CHECK(said.passed);
  CHECK(said.value >= 4 * 10);  // every wish blocked once the six replicas are in
  auto silent = one_more_each_budgeted(false);
  const CheckResult quiet = only_check(p, silent);
  CHECK_FALSE(quiet.passed);
  CHECK(quiet.value == 0);
  // Claiming the budget while far below it is not counted.
  auto liar = WholeInputPolicy("liar", [](const TickInput& input) {
    std::vector<Decision> out;
    for (const auto& m : input.models)
      for (const auto& v : m.variants)
        out.push_back({m.model, v.state.spec.name, v.state.current_replicas, v.state.current_replicas,
                       {ReasonCode::kBudgetLimited, "the budget, honest"}});
    return out;
  });
  CHECK(only_check(p, liar).value == 0);
}

TEST_CASE("spillover_off_cheapest fails a policy that grows the dear variant while the cheap one has room") {
  auto p = budget_scenario({{"spillover_off_cheapest", 0, {}}}, 0);
  auto dear = grow("dear");
  const CheckResult bad = only_check(p, dear);
  CHECK_FALSE(bad.passed);
  CHECK(bad.value == 1);
  auto fill = cheap_then_dear();
  const CheckResult good = only_check(p, fill);
  CHECK(good.passed);
  CHECK(good.value == 0);
  auto cheap = grow("cheap");
  CHECK(only_check(p, cheap).value == 0);
  // Raises to a configured minimum are not placement choices.
  auto floor = grow("dear", ReasonCode::kMinReplicas);
  CHECK(only_check(p, floor).value == 0);
  // Without sustainable rates the figure cannot be measured.
  p.sustainable_rps.clear();
  CHECK(std::isnan(only_check(p, fill).value));
}

TEST_CASE("A variant that cannot meet the SLO is the dearest whatever its price") {
  auto p = budget_scenario({{"spillover_off_cheapest", 0, {}}}, 0);
  p.sustainable_rps = {0, 10, 0, 10};  // the cheap variants sustain nothing at the SLO
  auto cheap = grow("cheap");
  CHECK(only_check(p, cheap).value == 1);
  auto dear = grow("dear");
  CHECK(only_check(p, dear).value == 0);
}

TEST_CASE("slo_attainment and ttft_p99_ms cover every model, or the one `model` names") {
  auto p = budget_scenario({{"slo_attainment", 0, {}}, {"slo_attainment", 0, {{"model", 1}}},
                            {"ttft_p99_ms", 1e9, {{"model", 0}}}});
  p.scenario.models[1].workload.params["rate_rps"] = 1;
  FixedPolicy fixed;
  auto r = run_scenario(p, fixed);
  REQUIRE(r.ok());
  const PolicyRun& run = r.value().run;
  CHECK(run.models[0].report.requests > 3 * run.models[1].report.requests);
  CHECK(r.value().checks[0].value == run.report.slo_attainment);
  CHECK(r.value().checks[1].value == run.models[1].report.slo_attainment);
  CHECK(r.value().checks[2].value == run.models[0].report.ttft_p99_ms);
}

TEST_CASE("slo_attainment from_s counts the requests arriving from then on, unfinished ones missed") {
  // 40 req/s on one replica that cannot serve it: a backlog from the first tick.
  auto p = scenario(poisson(40), 600, {{"slo_attainment", 0.95, {}}, {"slo_attainment", 0.95, {{"from_s", 300}}}}, 1, 30);
  p.scenario.models[0].workload.lengths = {256, 0.5, 512, 0.5};
  // Sized on the second tick: ready by 90 s, and the backlog drained well before 300 s.
  auto late = TestPolicy("late", [](int k, const VariantTickInput& v) { return k >= 1 ? 8 : v.state.current_replicas; });
  auto r = run_scenario(p, late);
  REQUIRE(r.ok());
  const auto& checks = r.value().checks;
  INFO(checks[0].value << " " << checks[1].value);
  CHECK(checks[0].value == r.value().run.report.slo_attainment);
  CHECK_FALSE(checks[0].passed);  // the start-up's backlog missed the SLO
  CHECK(checks[1].passed);        // every request after it met it
  long long arrived = 0, met = 0;
  for (const TickRecord& t : r.value().run.series)
    if (t.time_s > 300) arrived += t.arrived, met += t.arrived_met_slo;
  CHECK(arrived > 5000);
  CHECK(checks[1].value == Approx(static_cast<double>(met) / static_cast<double>(arrived)));
  // Never sized: the requests after from_s queue behind the backlog, many never finish.
  FixedPolicy fixed;
  auto f = run_scenario(p, fixed);
  REQUIRE(f.ok());
  INFO(f.value().checks[1].value);
  CHECK(f.value().checks[1].value < 0.5);
}

namespace {

// The shipped 2 prefill + 2 decode fleet under a light load, with a P:D band of 0.4-1.
PreparedScenario split_scenario(std::vector<CheckSpec> checks) {
  PreparedScenario p;
  p.scenario.name = "split";
  p.scenario.file = "split.yaml";
  p.scenario.models = {{"", poisson(6), 1}};
  p.scenario.models[0].workload.lengths = {512, 0.5, 128, 0.5};
  p.scenario.duration_s = 240;
  p.scenario.tick_s = 30;
  p.scenario.slo = {2000, 100};
  p.scenario.policy.pd_band = {0.4, 1.0};
  p.scenario.checks = std::move(checks);
  auto fleet = load_fleet_config(std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios/fleets/llama70b-disagg.yaml");
  REQUIRE(fleet.ok());
  p.fleets = {fleet.value()};
  return p;
}

// Grows decode by one replica a tick and leaves prefill alone: the drift the band is for.
TestPolicy decode_only_up() {
  return TestPolicy("decode-only-up", [](int, const VariantTickInput& v) {
    return v.state.current_replicas + (v.state.spec.role == Role::kDecode ? 1 : 0);
  });
}

}  // namespace

TEST_CASE("roles_scaled fails a policy that scales one role or none, and passes one that scales both") {
  const auto p = split_scenario({{"roles_scaled", 2, {}}});
  FixedPolicy fixed;
  auto decode_only = decode_only_up();
  auto up = always_up();
  CHECK(only_check(p, fixed).value == 0);
  const CheckResult one = only_check(p, decode_only);
  CHECK(one.value == 1);
  CHECK_FALSE(one.passed);
  const CheckResult both = only_check(p, up);
  CHECK(both.value == 2);
  CHECK(both.passed);
}

TEST_CASE("pd_ratio_outside_band counts ticks whose targets leave the band, and needs a band") {
  auto p = split_scenario({{"pd_ratio_outside_band", 0, {}}});
  FixedPolicy fixed;
  auto decode_only = decode_only_up();
  auto up = always_up();
  CHECK(only_check(p, fixed).passed);  // 2:2
  CHECK(only_check(p, up).passed);     // 3:3, 4:4, ...
  const CheckResult drift = only_check(p, decode_only);
  CHECK_FALSE(drift.passed);
  CHECK(drift.value >= 3);  // 2:6 and below are under 0.4
  p.scenario.policy.pd_band = {};
  CHECK(std::isnan(only_check(p, fixed).value));
}

TEST_CASE("spillover_off_cheapest compares a variant only with variants of its own role") {
  auto p = split_scenario({{"spillover_off_cheapest", 0, {}}});
  p.sustainable_rps = {20, 10};  // prefill is the cheaper per req/s, and has room
  auto decode_only = decode_only_up();
  const CheckResult r = only_check(p, decode_only);
  CHECK(r.value == 0);  // growing decode takes nothing a prefill replica could have served
  CHECK(r.passed);
  // The same two variants as one role: the dear one grown while the cheap one had room.
  for (auto& v : p.fleets[0].variants) v.role = Role::kBoth;
  p.scenario.policy.pd_band = {};
  CHECK(only_check(p, decode_only).value == 0);  // nothing is decode any more: nobody grows
  auto up_dear = TestPolicy("dear-up", [](int, const VariantTickInput& v) {
    return v.state.current_replicas + (v.state.spec.name == "llama70b-h100-decode" ? 1 : 0);
  });
  const CheckResult dear = only_check(p, up_dear);
  CHECK(dear.value == 1);
  CHECK_FALSE(dear.passed);
}

TEST_CASE("ramp_lead_s is negative for a count that never covers the ramp and positive for one set ahead of it") {
  auto p = scenario(steps({{0, 2}, {600, 12}}), 1200, {{"ramp_lead_s", 0, {{"from_s", 600}, {"to_s", 900}}}}, 1, 30);
  p.sustainable_rps = {10.0};  // one replica's sustainable rate, as the oracle would give it
  FixedPolicy fixed;  // one replica: 10 req/s never covers 12
  const CheckResult low = only_check(p, fixed);
  INFO(low.value);
  CHECK(low.value < 0);
  CHECK_FALSE(low.passed);
  auto early = TestPolicy("early", [](int k, const VariantTickInput& v) { return k >= 10 ? 2 : v.state.current_replicas; });
  const CheckResult ahead = only_check(p, early);  // 2 replicas targeted from t = 330 s on
  INFO(ahead.value);
  CHECK(ahead.value >= 270);
  CHECK(ahead.passed);
}

TEST_CASE("ttft_recovery_s reads requests by arrival: a backlog finishing late does not hide a recovered fleet") {
  auto p = scenario(steps({{0, 3}, {300, 40}, {420, 3}}), 900, {{"ttft_recovery_s", 240, {{"at_s", 300}, {"until_s", 900}}}}, 1, 30);
  p.scenario.models[0].workload.lengths = {256, 0.5, 512, 0.5};
  auto big = TestPolicy("big-at-step", [](int k, const VariantTickInput& v) { return k >= 10 ? 10 : v.state.current_replicas; });
  auto r = run_scenario(p, big);
  REQUIRE(r.ok());
  long long arrived = 0;
  for (const TickRecord& t : r.value().run.series) arrived += t.arrived;
  CHECK(arrived == r.value().run.report.requests);
  const CheckResult c = r.value().checks[0];
  INFO(c.value);
  CHECK(c.passed);
}
