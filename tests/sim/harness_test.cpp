#include "sim/harness.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

#include "domain/policies/fixed_policy.hpp"
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
      CHECK(d.reason.text() == "hold at 2: static provisioning");
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

TEST_CASE("The same seed gives identical JSON bytes, another seed does not") {
  auto once = [](std::uint64_t seed) {
    auto fleet = one_variant_fleet(1, 30, 60, 0.05);
    std::vector<PolicyRun> runs;
    FixedPolicy fixed;
    ScriptedPolicy scripted(60, 3);
    runs.push_back(run_policy(fixed, fleet, poisson(5, 600, seed), options(30, seed)).value());
    runs.push_back(run_policy(scripted, fleet, poisson(5, 600, seed), options(30, seed)).value());
    return summary_json("t", "f", {1000, 50}, Yardsticks{}, runs).dump();
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

namespace {

FleetConfig named_fleet(const std::string& model, int initial) {
  FleetConfig f = one_variant_fleet(initial, 0);
  f.model = model;
  return f;
}

std::vector<ModelInput> two_models(double until_s) {
  std::vector<ModelInput> models;
  models.push_back({named_fleet("chat", 1), steady(until_s, 2), 2});
  models.push_back({named_fleet("batch", 2), steady(until_s, 4), 1});
  return models;
}

// Asks model "chat" for 3 replicas from 30 s on and holds everything else.
class ChatUp : public ScriptedPolicy {
 public:
  ChatUp() : ScriptedPolicy(1e9, 0) {}
  std::vector<Decision> tick(const TickInput& input) override {
    auto out = ScriptedPolicy::tick(input);
    for (Decision& d : out)
      if (d.model.model_id == "chat" && input.now_s >= 30) d.target_replicas = 3;
    return out;
  }
};

}  // namespace

TEST_CASE("Several models tick in lockstep in one input, each with its priority, and decisions reach their model") {
  ChatUp policy;
  auto run = run_policy(policy, two_models(200), options(10));
  REQUIRE(run.ok());
  const PolicyRun& r = run.value();
  CHECK(r.error.empty());
  CHECK(r.variants == std::vector<std::string>{"chat/v", "batch/v"});
  CHECK(r.variant_model == std::vector<std::size_t>{0, 1});
  REQUIRE(r.models.size() == 2);
  CHECK(r.models[1].model == "batch");
  CHECK(r.models[1].first_variant == 1);
  REQUIRE(policy.inputs.size() > 5);
  for (const TickInput& in : policy.inputs) {
    REQUIRE(in.models.size() == 2);
    CHECK(in.models[0].model.model_id == "chat");
    CHECK(in.models[0].priority == 2);
    CHECK(in.models[1].priority == 1);
  }
  CHECK(policy.inputs[4].models[0].arrival_rate_rps == Approx(0.5));
  CHECK(policy.inputs[4].models[1].arrival_rate_rps == Approx(0.25).margin(0.06));
  // Only chat moved: 1 -> 3 from the t = 40 record on; batch stays at 2.
  CHECK(r.series[1].replicas == std::vector<int>{1, 2});
  CHECK(r.series[4].replicas == std::vector<int>{3, 2});
  CHECK(r.series[4].draining == std::vector<int>{0, 0});
  REQUIRE(r.report.scale_actions.size() == 1);
  CHECK(r.report.scale_actions[0].variant == "chat/v");
  CHECK(r.models[0].report.scale_actions[0].variant == "v");
  // The run's figures add up the models'.
  CHECK(r.models[0].report.requests == 100);
  CHECK(r.models[1].report.requests == 50);
  CHECK(r.report.requests == 150);
  CHECK(r.report.completed == 150);
  CHECK(r.report.gpu_hours == Approx(r.models[0].report.gpu_hours + r.models[1].report.gpu_hours));
  const auto& m0 = r.models[0].report;
  const auto& m1 = r.models[1].report;
  CHECK(r.report.slo_attainment ==
        Approx((m0.slo_attainment * 100 + m1.slo_attainment * 50) / 150));
}

TEST_CASE("variant_index finds a decision's variant by model and name across models") {
  ChatUp policy;
  auto run = run_policy(policy, two_models(60), options(30));
  REQUIRE(run.ok());
  const PolicyRun& r = run.value();
  CHECK(variant_index(r, Decision{{"sim", "batch"}, "v", 0, 0, {}}) == 1);
  CHECK(variant_index(r, Decision{{"sim", "chat"}, "v", 0, 0, {}}) == 0);
  CHECK(variant_index(r, Decision{{"sim", "nope"}, "v", 0, 0, {}}) == 2);
  CHECK(variant_index(r, Decision{{"sim", "chat"}, "w", 0, 0, {}}) == 2);
}

TEST_CASE("A one-model list run is the single-model run, and models after the first get their own seeds") {
  CHECK(model_seed(9, 0) == 9);
  CHECK(model_seed(9, 1) != 9);
  CHECK(model_seed(9, 1) != model_seed(9, 2));
  CHECK(model_seed(9, 1) == model_seed(9, 1));
  FixedPolicy a, b;
  auto single = run_policy(a, one_variant_fleet(1, 30, 60, 0.05), poisson(5, 300, 3), options(30, 3));
  std::vector<ModelInput> one;
  one.push_back({one_variant_fleet(1, 30, 60, 0.05), poisson(5, 300, 3), 1});
  auto listed = run_policy(b, std::move(one), options(30, 3));
  REQUIRE(single.ok());
  REQUIRE(listed.ok());
  CHECK(summary_json("t", "f", {1000, 50}, Yardsticks{}, {single.value()}).dump() ==
        summary_json("t", "f", {1000, 50}, Yardsticks{}, {listed.value()}).dump());
}

TEST_CASE("Models must be distinct and prioritised, and a decision for an unknown model is reported") {
  FixedPolicy fixed;
  std::vector<ModelInput> twice;
  twice.push_back({named_fleet("m", 1), steady(60), 1});
  twice.push_back({named_fleet("m", 1), steady(60), 1});
  auto dup = run_policy(fixed, std::move(twice), options(30));
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == "models[1]: model 'm' appears twice; decisions are routed by model id");
  std::vector<ModelInput> low;
  low.push_back({named_fleet("m", 1), steady(60), 0});
  auto prio = run_policy(fixed, std::move(low), options(30));
  REQUIRE_FALSE(prio.ok());
  CHECK(prio.error().message == "models[0]: priority must be >= 1, got 0");
  REQUIRE_FALSE(run_policy(fixed, std::vector<ModelInput>{}, options(30)).ok());

  class Stranger : public ScriptedPolicy {
   public:
    Stranger() : ScriptedPolicy(1e9, 0) {}
    std::vector<Decision> tick(const TickInput& input) override {
      auto out = ScriptedPolicy::tick(input);
      out.push_back({{"sim", "ghost"}, "v", 0, 5, {ReasonCode::kScaleUp, "boo"}});
      return out;
    }
  } stranger;
  auto run = run_policy(stranger, two_models(60), options(30));
  REQUIRE(run.ok());
  CHECK(run.value().error == "tick at 30 s: decision for unknown variant 'ghost/v' ignored");
}

TEST_CASE("A stale gap shows the pods as they were before it, aged, and no forward passes") {
  ScriptedPolicy policy(1e9, 0);
  HarnessOptions o = options(30);
  o.metrics_gap = MetricsGap{90, 180, MetricsGapKind::kStale};
  auto run = run_policy(policy, one_variant_fleet(2, 0), poisson(4, 400, 2), o);
  REQUIRE(run.ok());
  const TickInput* before = nullptr;
  int in_gap = 0;
  for (const TickInput& in : policy.inputs) {
    INFO("t = " << in.now_s);
    const auto& v = in.models[0].variants[0];
    if (in.now_s < 90 || in.now_s >= 180) {
      for (const PodMetrics& p : v.state.pods) CHECK(p.sample_age_s == 0);
      if (in.now_s >= 180) CHECK_FALSE(v.forward_passes.empty());
      if (in.now_s < 90) before = &in;
      continue;
    }
    ++in_gap;
    REQUIRE(before != nullptr);
    CHECK(before->now_s == 60);
    const auto& frozen = before->models[0].variants[0].state.pods;
    REQUIRE(v.state.pods.size() == frozen.size());
    REQUIRE_FALSE(frozen.empty());
    for (std::size_t i = 0; i < frozen.size(); ++i) {
      CHECK(v.state.pods[i].pod == frozen[i].pod);
      CHECK(v.state.pods[i].avg_ttft_ms == frozen[i].avg_ttft_ms);
      CHECK(v.state.pods[i].arrival_rate_rps == frozen[i].arrival_rate_rps);
      CHECK(v.state.pods[i].sample_age_s == in.now_s - 60);
    }
    CHECK(v.forward_passes.empty());
    CHECK(v.state.current_replicas == 2);  // counts stay live
  }
  CHECK(in_gap == 3);  // 90, 120, 150
}

TEST_CASE("freeze_metrics copies pods by position, adds the age, and leaves variants it lacks without pods") {
  TickInput frozen;
  frozen.now_s = 100;
  frozen.models.resize(1);
  frozen.models[0].variants.resize(1);
  PodMetrics p;
  p.pod = "a";
  p.kv_usage = 0.4;
  p.sample_age_s = 5;
  frozen.models[0].variants[0].state.pods = {p};
  TickInput now;
  now.now_s = 160;
  now.models.resize(2);
  now.models[0].variants.resize(2);
  now.models[1].variants.resize(1);
  now.models[0].variants[0].forward_passes.resize(3);
  now.models[1].variants[0].state.pods.resize(2);
  freeze_metrics(now, frozen);
  REQUIRE(now.models[0].variants[0].state.pods.size() == 1);
  CHECK(now.models[0].variants[0].state.pods[0].kv_usage == 0.4);
  CHECK(now.models[0].variants[0].state.pods[0].sample_age_s == 65);
  CHECK(now.models[0].variants[0].forward_passes.empty());
  CHECK(now.models[0].variants[1].state.pods.empty());
  CHECK(now.models[1].variants[0].state.pods.empty());
}

TEST_CASE("A tick input carries a model's forward passes only when they are read, and never builds the others") {
  const FleetConfig fleet = one_variant_fleet(1, 0);
  Observation obs;
  obs.now_s = 60;
  obs.window_s = 30;
  obs.variants.resize(1);
  obs.variants[0].forward_passes.resize(3);
  obs.variants[0].forward_passes[2].wall_time_ms = 12.5;
  std::vector<std::string> asked;
  const ReadsForwardPasses reads = [&asked](const ModelTickInput& m) {
    asked.push_back(m.model.model_id + "/" + m.variants.at(0).state.spec.name);
    return m.variants.at(0).state.spec.name == "read";
  };
  const TickInput unread = to_tick_input(obs, fleet, {}, 30, "sim", reads);
  CHECK(asked == std::vector<std::string>{"test-model/v"});  // the model as the policy sees it
  CHECK(unread.models[0].variants[0].forward_passes.empty());
  CHECK(unread.models[0].variants[0].forward_passes.capacity() == 0);

  FleetConfig read_fleet = fleet;
  read_fleet.variants[0].name = "read";
  const TickInput read = to_tick_input(obs, read_fleet, {}, 30, "sim", reads);
  REQUIRE(read.models[0].variants[0].forward_passes.size() == 3);
  CHECK(read.models[0].variants[0].forward_passes[2].wall_time_ms == 12.5);
  // No reader: every model's, as `simulate` hands them to a policy.
  CHECK(to_tick_input(obs, fleet, {}, 30, "sim").models[0].variants[0].forward_passes.size() == 3);
}
