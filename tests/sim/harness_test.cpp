#include "sim/harness.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

#include "domain/fixed_policy.hpp"
#include "sim/report/summary_json.hpp"
#include "sim/sim_fixtures.hpp"
#include "sim/synthetic_trace.hpp"

using namespace capstan;
using namespace capstan::sim;
using capstan::sim::testing::VectorTrace;
using capstan::sim::testing::one_variant_fleet;
using capstan::sim::testing::request;

namespace {

// Asks for `target` replicas from `from_s` on, and keeps every input it saw.
class ScriptedPolicy : public Policy {
 public:
  ScriptedPolicy(double from_s, int target) : from_s_(from_s), target_(target) {}
  std::string name() const override { return "scripted"; }
  std::vector<Decision> tick(const TickInput& input) override {
    inputs.push_back(input);
    std::vector<Decision> out;
    for (const auto& m : input.models)
      for (const auto& v : m.variants) {
        const int current = v.state.current_replicas;
        const int target = input.now_s >= from_s_ ? target_ : current;
        out.push_back({m.model, v.state.spec.name, current, target, {direction_code(current, target), "scripted"}});
      }
    return out;
  }
  nlohmann::json save_state() const override { return nullptr; }
  Result<bool> restore_state(const nlohmann::json&) override { return true; }
  std::vector<TickInput> inputs;

 private:
  double from_s_;
  int target_;
};

class ThrowingPolicy : public ScriptedPolicy {
 public:
  ThrowingPolicy() : ScriptedPolicy(0, 2) {}
  std::string name() const override { return "throwing"; }
  std::vector<Decision> tick(const TickInput& input) override {
    if (input.now_s >= 60) throw std::runtime_error("model exploded");
    return ScriptedPolicy::tick(input);
  }
};

std::unique_ptr<TraceSource> steady(double until_s, double every_s = 2) {
  std::vector<Request> reqs;
  for (double t = 0; t < until_s; t += every_s) reqs.push_back(request(t, 200, 20));
  return std::make_unique<VectorTrace>(reqs);
}

std::unique_ptr<TraceSource> poisson(double rate, double duration_s, std::uint64_t seed) {
  return std::make_unique<SyntheticTrace>(poisson_rate(rate), duration_s, lognormal_lengths(512, 0.8, 64, 0.8),
                                          seed);
}

HarnessOptions options(double tick_s, std::uint64_t seed = 1) {
  HarnessOptions o;
  o.tick_s = tick_s;
  o.slo = {1000, 50};
  o.seed = seed;
  return o;
}

}  // namespace

TEST_CASE("The harness applies a policy's decisions to the fleet and reports the target as desired") {
  ScriptedPolicy policy(30, 3);
  auto run = run_policy(policy, one_variant_fleet(1, 0), steady(200), options(10));
  REQUIRE(run.ok());
  const auto& series = run.value().series;
  REQUIRE(series.size() > 10);
  CHECK(series[1].replicas[0] == 1);  // t = 20: before the decision
  CHECK(series[3].replicas[0] == 3);  // t = 40: after the t = 30 decision
  CHECK(run.value().report.scale_actions.size() == 1);
  // The policy sees its own last target as desired from the next tick on.
  REQUIRE(policy.inputs.size() > 4);
  CHECK_FALSE(policy.inputs[0].models[0].variants[0].state.desired_replicas.has_value());
  CHECK(policy.inputs[3].models[0].variants[0].state.desired_replicas == 3);
  CHECK(run.value().error.empty());
}

TEST_CASE("The fixed policy holds every variant at its initial count for the whole run") {
  FixedPolicy policy;
  auto run = run_policy(policy, one_variant_fleet(2, 60), poisson(6, 900, 5), options(30));
  REQUIRE(run.ok());
  for (const auto& tick : run.value().series) {
    CHECK(tick.replicas[0] == 2);
    for (const auto& d : tick.decisions) {
      CHECK(d.target_replicas == 2);
      CHECK(d.reason.code == ReasonCode::kHold);
      CHECK(d.reason.text == "hold at 2: static provisioning");
    }
  }
  CHECK(run.value().report.scale_actions.empty());
  CHECK(run.value().report.requests > 4000);
}

TEST_CASE("A scale-up yields ready capacity exactly pending + cold start after the decision") {
  auto fleet = one_variant_fleet(1, 60);
  fleet.variants[0].pending_s = 10;
  ScriptedPolicy policy(20, 2);
  auto run = run_policy(policy, fleet, steady(300), options(10));
  REQUIRE(run.ok());
  // Decision at t = 20: the new replica is pending until 30, loading until 90.
  for (const auto& tick : run.value().series) {
    if (tick.time_s <= 20) continue;  // a tick records the fleet before its decisions
    INFO("t = " << tick.time_s);
    CHECK(tick.replicas[0] == 2);
    CHECK(tick.ready[0] == (tick.time_s < 90 ? 1 : 2));
  }
  // The measured start-up reaches the policy once, at the first tick after it.
  int reported = 0;
  for (const auto& input : policy.inputs) {
    const auto& v = input.models[0].variants[0];
    CHECK(v.configured_cold_start_s == 70);
    for (double s : v.new_cold_starts_s) {
      CHECK(s == Approx(70));
      CHECK(input.now_s == 90);
      ++reported;
    }
    if (input.now_s == 80) CHECK(v.state.pending_replicas == 1);
    if (input.now_s == 80) CHECK(v.state.pods.size() == 1);  // only ready pods
  }
  CHECK(reported == 1);
}

TEST_CASE("The policy sees arrival rate, upstream queue and recent forward passes") {
  ScriptedPolicy policy(1e9, 0);
  auto run = run_policy(policy, one_variant_fleet(1, 0), poisson(4, 300, 2), options(30));
  REQUIRE(run.ok());
  REQUIRE(policy.inputs.size() >= 5);
  const auto& m = policy.inputs[4].models[0];
  CHECK(m.model.model_id == "test-model");
  CHECK(m.arrival_rate_rps == Approx(4).epsilon(0.35));
  CHECK(m.upstream_queue == 0);
  const auto& v = m.variants[0];
  CHECK_FALSE(v.forward_passes.empty());
  CHECK(v.forward_passes.size() <= ModelServer::kRecentForwardPasses);
  CHECK(v.forward_passes.back().wall_time_ms > 0);
  CHECK(v.state.spec.name == "v");
  CHECK(v.state.spec.cost_per_replica == 2.0);
}

TEST_CASE("The same seed gives identical JSON bytes; another seed does not") {
  auto once = [](std::uint64_t seed) {
    auto fleet = one_variant_fleet(1, 30, 60, 0.05);
    std::vector<PolicyRun> runs;
    FixedPolicy fixed;
    ScriptedPolicy scripted(60, 3);
    runs.push_back(run_policy(fixed, fleet, poisson(5, 600, seed), options(30, seed)).value());
    runs.push_back(run_policy(scripted, fleet, poisson(5, 600, seed), options(30, seed)).value());
    return summary_json("t", "f", {1000, 50}, Oracle{}, runs).dump();
  };
  const std::string a = once(9);
  CHECK(a == once(9));
  CHECK(a != once(10));
}

TEST_CASE("A policy that throws is recorded in its run and the trace is still simulated to the end") {
  ThrowingPolicy policy;
  auto run = run_policy(policy, one_variant_fleet(1, 0), steady(300), options(30));
  REQUIRE(run.ok());
  CHECK(run.value().error == "tick at 60 s threw: model exploded");
  CHECK(run.value().report.requests == 150);
  CHECK(run.value().report.completed == 150);
  CHECK(run.value().series.back().replicas[0] == 2);  // the last target it sent stays
}

TEST_CASE("A malformed trace is an error of the run, not a crash") {
  class Broken : public TraceSource {
   public:
    Result<std::optional<Request>> next() override { return invalid_argument("trace.csv:3: bad row"); }
  };
  FixedPolicy policy;
  auto run = run_policy(policy, one_variant_fleet(1, 0), std::make_unique<Broken>(), options(30));
  REQUIRE_FALSE(run.ok());
  CHECK(run.error().message == "trace.csv:3: bad row");
}
