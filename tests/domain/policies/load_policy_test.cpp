#include "domain/policies/load_policy.hpp"

#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "test_data.hpp"

using namespace capstan;

namespace {

VariantTickInput variant(Role role, int current, int pending = 0) {
  VariantTickInput in;
  in.state.spec.name = "v";
  in.state.spec.role = role;
  in.state.spec.min_replicas = 1;
  in.state.spec.max_replicas = 10;
  in.state.current_replicas = current;
  in.state.pending_replicas = pending;
  return in;
}

// Decode iterations on DC-A's line, wall = 0.01 ms x KV + 1 ms, 1000 KV tokens per request.
ForwardPassSample decode_pass(const std::string& pod, double kv) {
  ForwardPassSample f;
  f.pod = pod;
  f.decode_kv_tokens = kv;
  f.running_requests = kv / 1000;
  f.wall_time_ms = 0.01 * kv + 1;
  return f;
}

LoadVariantState trained_decode() {
  LoadVariantState s;
  s.regression.role = Role::kDecode;
  for (double n : {5.0, 10.0, 20.0, 30.0, 40.0}) {
    s.regression = observe(std::move(s.regression), {0.01 * 1000 * n + 1, 0, 0, 1000 * n, n}, {});
  }
  return s;
}

LoadConfig decode_config() {
  LoadConfig c;
  c.slo = {0, 100};  // ITL 100 ms; scale down below 80 ms
  return c;
}

// ITL estimate of an engine at kv: 0.01 (kv + 1000) + 1.
LoadStep decode_tick(const LoadVariantState& s, int current, std::vector<double> kv_per_engine,
                     double now_s = 100, int floor = 1) {
  VariantTickInput in = variant(Role::kDecode, current);
  for (size_t i = 0; i < kv_per_engine.size(); ++i) {
    in.forward_passes.push_back(decode_pass("pod-" + std::to_string(i), kv_per_engine[i]));
  }
  return load_step(s, in, decode_config(), now_s, floor);
}

TickInput one_model(double now_s, VariantTickInput v) {
  TickInput t;
  t.now_s = now_s;
  ModelTickInput m;
  m.model = {"ns", "m"};
  m.variants.push_back(std::move(v));
  t.models.push_back(std::move(m));
  return t;
}

// Every ready decode engine ending at kv, with enough iterations for the fit in one tick.
VariantTickInput busy_decode(int current, int pending, double kv) {
  VariantTickInput in = variant(Role::kDecode, current, pending);
  in.state.desired_replicas = current;
  for (int e = 0; e < current - pending; ++e) {
    const std::string pod = "pod-" + std::to_string(e);
    for (double n : {5.0, 10.0, 20.0, 30.0, 40.0}) in.forward_passes.push_back(decode_pass(pod, 1000 * n));
    in.forward_passes.push_back(decode_pass(pod, kv));
  }
  return in;
}

}  // namespace

TEST_CASE("Dynamo reference: a deep prefill queue over the TTFT target scales up (E1)") {
  const auto data = testing::load_json("dynamo-vectors.json");
  const auto& c = data.at("load_scale_up");
  INFO(c.at("source").get<std::string>());
  VariantTickInput in = variant(Role::kPrefill, c.at("replicas"));
  for (const auto& row : data.at("models").at("PF-A").at("samples")) {
    ForwardPassSample f;
    f.pod = "p0";
    f.scheduled_prefill_tokens = row.at(0);
    f.wall_time_ms = row.at(2);
    in.forward_passes.push_back(f);
  }
  ForwardPassSample tick;
  tick.pod = "p0";
  tick.scheduled_prefill_tokens = c.at("tick").at("prefill_tokens");
  tick.wall_time_ms = c.at("tick").at("wall_time_ms");
  tick.queued_prefill_tokens = c.at("tick").at("queued_prefill_tokens");
  in.forward_passes.push_back(tick);
  LoadConfig config;
  config.slo = {c.at("ttft_slo_ms"), 0};
  config.max_batched_tokens = c.at("max_batched_tokens");
  const LoadStep step = load_step({}, in, config, 0, 1);
  REQUIRE(step.estimates.size() == 1);
  CHECK(step.estimates[0].ttft_ms == Approx(c.at("estimate_ttft_ms").get<double>()).epsilon(c.at("tol_rel").get<double>()));
  CHECK(step.request.target_replicas == c.at("target").get<int>());
  CHECK(step.request.reason.code == ReasonCode::kScaleUp);
}

TEST_CASE("Every engine's ITL estimate above the target scales up by one") {
  const LoadStep step = decode_tick(trained_decode(), 2, {10000, 12000});  // 111 and 131 ms
  CHECK(step.request.target_replicas == 3);
  CHECK(step.request.reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(step.request.reason.text(), Catch::StartsWith("scale up 2 -> 3: estimated ITL 111-131 ms"));
  CHECK_THAT(step.request.reason.text(), Catch::Contains("on all 2 engine(s)"));
}

TEST_CASE("One engine under the target holds: scale-up needs every engine above it") {
  const LoadStep step = decode_tick(trained_decode(), 2, {10000, 5000});  // 111 and 61 ms
  CHECK(step.request.target_replicas == 2);
  CHECK(step.request.reason.code == ReasonCode::kHold);
}

TEST_CASE("A scale-down needs one engine fewer to still meet the target: the consolidation check") {
  // 3 engines at 3000, 3000, 4000 KV: on 2 engines 4000 x 3/2 = 6000 KV, ITL 71 ms < 80.
  const LoadStep down = decode_tick(trained_decode(), 3, {3000, 3000, 4000});
  CHECK(down.request.target_replicas == 2);
  CHECK(down.request.reason.code == ReasonCode::kScaleDown);
  CHECK_THAT(down.request.reason.text(), Catch::Contains("on 2 engine(s) ITL would be 71 ms, below 0.8 x target"));
  // 61, 61 and 71 ms are each below 0.8 x 100 ms -- the rule before Dynamo PR #9294 would
  // scale down -- but 6000 x 3/2 = 9000 KV on one of two engines is 101 ms: refused.
  const LoadStep refused = decode_tick(trained_decode(), 3, {5000, 5000, 6000});
  CHECK(refused.request.target_replicas == 3);
  CHECK(refused.request.reason.code == ReasonCode::kHold);
  CHECK_THAT(refused.request.reason.text(),
             Catch::Contains("scale-down refused: on 2 engine(s) ITL would reach 101 ms against 0.8 x target"));
}

TEST_CASE("Two engines that would flap 2 -> 1 -> 2 stay at two") {
  // 30 ms each on two engines; on one, 2 x 3000 KV: 71 ms, fine; 2 x 4000: 91 ms, refused.
  CHECK(decode_tick(trained_decode(), 2, {3000, 3000}).request.target_replicas == 1);
  const LoadStep held = decode_tick(trained_decode(), 2, {4000, 4000});
  CHECK(held.request.target_replicas == 2);
  CHECK(held.estimates.at(0).itl_post_ms == Approx(91));
}

TEST_CASE("A single ready engine is never scaled down by the load loop") {
  const LoadStep step = decode_tick(trained_decode(), 1, {1000}, 100, 0);
  CHECK(step.request.target_replicas == 1);
  CHECK_THAT(step.request.reason.text(), Catch::Contains("one ready engine"));
}

TEST_CASE("The loop takes one step per adjustment interval") {
  const LoadStep first = decode_tick(trained_decode(), 2, {10000, 12000}, 100);
  REQUIRE(first.request.target_replicas == 3);
  const LoadStep soon = decode_tick(first.state, 3, {10000, 12000, 11000}, 103);
  CHECK(soon.request.target_replicas == 3);
  CHECK(soon.request.reason.code == ReasonCode::kCooldown);
  const LoadStep later = decode_tick(first.state, 3, {10000, 12000, 11000}, 105);
  CHECK(later.request.target_replicas == 4);
}

TEST_CASE("Nothing new is asked while a previous action is in flight") {
  VariantTickInput in = variant(Role::kDecode, 3, /*pending=*/1);
  for (const char* pod : {"a", "b"}) in.forward_passes.push_back(decode_pass(pod, 12000));
  const LoadStep step = load_step(trained_decode(), in, decode_config(), 100, 1);
  CHECK(step.request.target_replicas == 3);
  CHECK(step.request.reason.code == ReasonCode::kPendingGuard);
}

TEST_CASE("Missing forward passes hold the last good target, never lower than the current count") {
  LoadPolicy policy(decode_config());
  REQUIRE(policy.tick(one_model(0, busy_decode(2, 0, 12000)))[0].target_replicas == 3);
  VariantTickInput in = variant(Role::kDecode, 2);  // the third has not landed
  in.state.desired_replicas = 3;
  const Decision gap = policy.tick(one_model(30, in))[0];
  CHECK(gap.target_replicas == 3);
  CHECK(gap.reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(gap.reason.text(), Catch::StartsWith("hold at 3: no forward passes this tick"));

  LoadPolicy other(decode_config());
  REQUIRE(other.tick(one_model(0, busy_decode(3, 0, 2000)))[0].target_replicas == 2);
  const Decision vanished = other.tick(one_model(30, variant(Role::kDecode, 3)))[0];
  CHECK(vanished.target_replicas == 3);  // data vanished: no scale-down
  CHECK(vanished.reason.code == ReasonCode::kMetricsMissing);

  // The step alone says why and holds at the current count.
  const LoadStep step = load_step(trained_decode(), variant(Role::kDecode, 2), decode_config(), 200, 1);
  CHECK(step.unusable->text() == "no forward passes this tick");
  CHECK(step.request.target_replicas == 2);
}

TEST_CASE("Pod metrics do not matter to the load policy, which reads forward passes") {
  LoadPolicy policy(decode_config());
  VariantTickInput in = busy_decode(2, 0, 12000);  // no pod reported: pods are empty
  REQUIRE(in.state.pods.empty());
  CHECK(policy.tick(one_model(0, in))[0].target_replicas == 3);
}

TEST_CASE("Replicas still loading stop the load policy from stepping again for the same load") {
  LoadPolicy policy(decode_config());
  REQUIRE(policy.tick(one_model(0, busy_decode(2, 0, 12000)))[0].target_replicas == 3);
  // 60 s later the third replica is still loading; both ready engines are still over the target.
  const Decision d = policy.tick(one_model(60, busy_decode(3, 1, 12000)))[0];
  CHECK(d.target_replicas == 3);
  CHECK(d.reason.code == ReasonCode::kPendingGuard);
  // Once it is ready and reporting, the loop may step again.
  CHECK(policy.tick(one_model(90, busy_decode(3, 0, 12000)))[0].target_replicas == 4);
}

TEST_CASE("The GPU budget and the step limit bound the load policy") {
  PolicyConfig budget;
  budget.gpu_budget = 2;
  const Decision b = LoadPolicy(decode_config(), budget).tick(one_model(0, busy_decode(2, 0, 12000)))[0];
  CHECK(b.target_replicas == 2);
  CHECK(b.reason.code == ReasonCode::kBudgetLimited);

  // A floor far above the current count is reached one step at a time.
  PolicyConfig step;
  step.max_step_up = 2;
  VariantTickInput low = busy_decode(2, 0, 2000);
  low.state.spec.min_replicas = 8;
  const Decision d = LoadPolicy(decode_config(), step).tick(one_model(0, low))[0];
  CHECK(d.target_replicas == 4);
  CHECK_THAT(d.reason.text(), Catch::Contains("floor of 8"));
  CHECK_THAT(d.reason.text(), Catch::EndsWith("; limited to 4 by the step limit"));
}

TEST_CASE("Fewer engines reporting than are ready, or non-finite passes, count as missing metrics") {
  const LoadStep partial = decode_tick(trained_decode(), 3, {5000, 5000});
  CHECK(partial.request.reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(partial.request.reason.text(), Catch::Contains("2 of 3 ready replicas"));
  VariantTickInput in = variant(Role::kDecode, 1);
  ForwardPassSample bad = decode_pass("a", 5000);
  bad.wall_time_ms = std::numeric_limits<double>::quiet_NaN();
  in.forward_passes.push_back(bad);
  const LoadStep nan = load_step(trained_decode(), in, decode_config(), 100, 1);
  CHECK(nan.request.reason.code == ReasonCode::kMetricsMissing);
  CHECK(nan.state.regression.samples.size() == 5);  // the NaN pass was not learned from
}

TEST_CASE("The floor refuses a scale-down below it and raises a lower count to it") {
  const LoadStep refused = decode_tick(trained_decode(), 2, {2000, 2000}, 100, 2);  // one engine would do
  CHECK(refused.request.target_replicas == 2);
  CHECK_THAT(refused.request.reason.text(), Catch::Contains("refused by the floor of 2"));
  const LoadStep raised = decode_tick(trained_decode(), 1, {5000}, 100, 3);
  CHECK(raised.request.target_replicas == 3);
  CHECK(raised.request.reason.code == ReasonCode::kScaleUp);
}

TEST_CASE("Too few iterations to fit hold with no capacity data") {
  const LoadStep step = decode_tick(LoadVariantState{}, 2, {5000, 5000});
  CHECK(step.request.reason.code == ReasonCode::kNoCapacityData);
  CHECK(step.request.target_replicas == 2);
}

TEST_CASE("An aggregated variant scales up on ITL alone and down only when both are low") {
  LoadVariantState s;
  s.regression.role = Role::kBoth;
  // wall = 0.1 ms x prefill + 0.01 ms x KV + 1 ms on non-collinear points.
  for (auto [p, kv] : {std::pair{100.0, 5000.0}, {200.0, 15000.0}, {50.0, 20000.0}, {400.0, 10000.0}, {300.0, 30000.0}}) {
    s.regression = observe(std::move(s.regression), {0.1 * p + 0.01 * kv + 1, p, 1, kv, kv / 1000}, {});
  }
  LoadConfig config;
  config.slo = {100000, 100};  // TTFT never binds
  auto tick = [&](double kv) {
    VariantTickInput in = variant(Role::kBoth, 2);
    for (const char* pod : {"a", "b"}) {
      ForwardPassSample f;
      f.pod = pod;
      f.scheduled_prefill_tokens = 200;
      f.decode_kv_tokens = kv;
      f.running_requests = kv / 1000;
      f.wall_time_ms = 0.1 * 200 + 0.01 * kv + 1;
      in.forward_passes.push_back(f);
    }
    return load_step(s, in, config, 100, 1);
  };
  CHECK(tick(12000).request.target_replicas == 3);  // ITL ~ 12000+1000 KV -> > 100 ms
  CHECK(tick(2000).request.target_replicas == 1);
}

namespace {

// Two engines of an aggregated variant on wall = 0.1 ms x prefill + 0.01 ms x KV + 1 ms.
LoadStep aggregated_tick(const SloTargets& slo, double kv) {
  LoadVariantState s;
  s.regression.role = Role::kBoth;
  for (auto [p, kv_fit] : {std::pair{100.0, 5000.0}, {200.0, 15000.0}, {50.0, 20000.0}, {400.0, 10000.0}, {300.0, 30000.0}}) {
    s.regression = observe(std::move(s.regression), {0.1 * p + 0.01 * kv_fit + 1, p, 1, kv_fit, kv_fit / 1000}, {});
  }
  LoadConfig config;
  config.slo = slo;
  VariantTickInput in = variant(Role::kBoth, 2);
  for (const char* pod : {"a", "b"}) {
    ForwardPassSample f;
    f.pod = pod;
    f.scheduled_prefill_tokens = 200;
    f.decode_kv_tokens = kv;
    f.running_requests = kv / 1000;
    f.wall_time_ms = 0.1 * 200 + 0.01 * kv + 1;
    in.forward_passes.push_back(f);
  }
  return load_step(s, in, config, 100, 1);
}

}  // namespace

TEST_CASE("With a TTFT-only SLO the load loop scales up on TTFT, and an ITL far above anything never triggers") {
  const LoadStep up = aggregated_tick({5, 0}, 2000);  // every TTFT estimate above 5 ms
  CHECK(up.request.target_replicas == 3);
  CHECK(up.request.reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(up.request.reason.text(), Catch::Contains("estimated TTFT"));
  const LoadStep calm = aggregated_tick({100000, 0}, 50000);  // ITL ~ 510 ms, unconstrained
  CHECK(calm.request.target_replicas == 1);
  CHECK(calm.request.reason.code == ReasonCode::kScaleDown);
  CHECK_THAT(calm.request.reason.text(), Catch::Contains("ITL") && Catch::Contains("(no target)"));
}

TEST_CASE("With an ITL-only SLO the load loop scales up and down on ITL alone") {
  const LoadStep up = aggregated_tick({0, 100}, 12000);  // ITL ~ 131 ms
  CHECK(up.request.target_replicas == 3);
  CHECK(up.request.reason.code == ReasonCode::kScaleUp);
  const LoadStep calm = aggregated_tick({0, 100}, 2000);  // ITL ~ 31 ms; TTFT unconstrained
  CHECK(calm.request.target_replicas == 1);
  CHECK(calm.request.reason.code == ReasonCode::kScaleDown);
}

TEST_CASE("Load policy save and restore give identical subsequent decisions") {
  auto made = make_policy("load", PolicyConfig{});
  REQUIRE(made.ok());
  auto& policy = *made.value();
  auto input_at = [](double now, double kv) {
    TickInput t;
    t.now_s = now;
    ModelTickInput m;
    m.model = {"ns", "m"};
    VariantTickInput v = variant(Role::kDecode, 2);
    for (int i = 0; i < 4; ++i) {
      v.forward_passes.push_back(decode_pass("a", kv + 1000 * i));
      v.forward_passes.push_back(decode_pass("b", kv + 500 * i));
    }
    m.variants.push_back(v);
    t.models.push_back(m);
    return t;
  };
  policy.tick(input_at(0, 2000));
  const nlohmann::json saved = nlohmann::json::parse(policy.save_state().dump());
  auto other = make_policy("load", PolicyConfig{});
  REQUIRE(other.value()->restore_state(saved).ok());
  for (double now : {10.0, 20.0, 30.0}) {
    CHECK(policy.tick(input_at(now, 9000 + now * 100)) == other.value()->tick(input_at(now, 9000 + now * 100)));
  }
  CHECK(policy.save_state() == other.value()->save_state());
  CHECK_FALSE(other.value()->restore_state(nlohmann::json{{"policy", "hpa"}}).ok());
}
