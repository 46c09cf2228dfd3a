#include "domain/policies/hpa_policy.hpp"

#include <cmath>

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

// `ready` ready pods each with `concurrency` running + waiting, plus `pending` starting.
VariantState variant(int ready, double concurrency, int pending = 0, int min = 1, int max = 20) {
  VariantState v;
  v.spec.name = "v";
  v.spec.min_replicas = min;
  v.spec.max_replicas = max;
  v.current_replicas = ready + pending;
  v.pending_replicas = pending;
  for (int i = 0; i < ready; ++i) {
    PodMetrics p;
    p.pod = "pod-" + std::to_string(i);
    p.running = concurrency * 0.75;
    p.queue_length = concurrency * 0.25;
    v.pods.push_back(p);
  }
  return v;
}

ScalingRequest step(HpaVariantState& s, const VariantState& v, double now_s, HpaConfig c = {}) {
  HpaStep out = hpa_step(s, v, c, now_s);
  s = out.state;
  return out.request;
}

TickInput one_model(double now_s, VariantState v) {
  TickInput t;
  t.now_s = now_s;
  ModelTickInput m;
  m.model = {"ns", "m"};
  VariantTickInput in;
  in.state = std::move(v);
  m.variants.push_back(std::move(in));
  t.models.push_back(std::move(m));
  return t;
}

}  // namespace

TEST_CASE("HPA defaults: 32 concurrent requests per replica, 10% tolerance, 300 s down-stabilization") {
  const HpaConfig c;
  CHECK(c.target_concurrency_per_replica == 32);
  CHECK(c.tolerance == 0.1);
  CHECK(c.scale_down_stabilization_s == 300);
  CHECK(c.scale_up_stabilization_s == 0);
}

TEST_CASE("Within 10% of the target nothing changes") {
  HpaVariantState s;
  const ScalingRequest r = step(s, variant(4, 34), 0);  // ratio 1.0625
  CHECK(r.target_replicas == 4);
  CHECK(r.reason.code == ReasonCode::kHold);
  CHECK_THAT(r.reason.text(), Catch::Contains("within the tolerance"));
  CHECK(step(s, variant(4, 29), 10).target_replicas == 4);  // ratio 0.906
}

TEST_CASE("Past the tolerance desired = ceil(current x metric / target)") {
  HpaVariantState s;
  CHECK(step(s, variant(4, 36), 0).target_replicas == 5);  // ceil(4 x 1.125)
  HpaVariantState t;
  const ScalingRequest r = step(t, variant(2, 61.5), 0);  // ceil(2 x 1.92)
  CHECK(r.target_replicas == 4);
  CHECK(r.reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(r.reason.text(), Catch::StartsWith("scale up 2 -> 4: 61.5 concurrent requests per replica against the 32 target"));
}

TEST_CASE("The stabilization window blocks a scale-down for 300 s") {
  HpaVariantState s;
  REQUIRE(step(s, variant(4, 32), 0).target_replicas == 4);
  const ScalingRequest blocked = step(s, variant(4, 8), 30);  // recommends 1
  CHECK(blocked.target_replicas == 4);
  CHECK(blocked.reason.code == ReasonCode::kCooldown);
  CHECK_THAT(blocked.reason.text(), Catch::Contains("300 s stabilization window"));
  CHECK(step(s, variant(4, 8), 299).target_replicas == 4);
  const ScalingRequest after = step(s, variant(4, 8), 301);  // the t=0 recommendation left the window
  CHECK(after.target_replicas == 1);
  CHECK(after.reason.code == ReasonCode::kScaleDown);
}

TEST_CASE("Scale-ups are not stabilized but are rate limited to +4 pods or +100% per period") {
  HpaVariantState s;
  CHECK(step(s, variant(1, 320), 0).target_replicas == 5);   // ceil(10) limited to 1 + 4
  HpaVariantState t;
  CHECK(step(t, variant(8, 64), 0).target_replicas == 16);   // doubling allowed
}

TEST_CASE("Min and max replicas bound the target") {
  HpaVariantState s;
  const ScalingRequest capped = step(s, variant(4, 100, 0, 1, 6), 0);
  CHECK(capped.target_replicas == 6);
  CHECK(capped.reason.code == ReasonCode::kMaxReplicas);
  HpaVariantState t;
  const ScalingRequest floored = step(t, variant(4, 1, 0, 3, 20), 0);
  CHECK(floored.target_replicas == 3);
  CHECK(floored.reason.code == ReasonCode::kMinReplicas);
}

TEST_CASE("Pending replicas count as capacity on the way: no scale-up past them") {
  HpaVariantState s;
  // 2 ready at 48 (ratio 1.5) and 2 starting: 96 / (32 x 4) = 0.75, below 1 -> hold.
  const ScalingRequest r = step(s, variant(2, 48, 2), 0);
  CHECK(r.target_replicas == 4);
  CHECK(r.reason.code == ReasonCode::kHold);
  // 2 ready at 96 and 1 starting: 192 / 96 = 2 -> ceil(2 x 3) = 6.
  HpaVariantState t;
  CHECK(step(t, variant(2, 96, 1), 0).target_replicas == 6);
}

TEST_CASE("Missing or NaN metrics hold the last good target") {
  HpaPolicy policy{HpaConfig{}};
  REQUIRE(policy.tick(one_model(0, variant(2, 64)))[0].target_replicas == 4);
  VariantState gap = variant(2, 64);  // the two new replicas have not landed
  gap.pods.clear();
  const Decision r = policy.tick(one_model(30, gap))[0];
  CHECK(r.target_replicas == 4);
  CHECK(r.reason.code == ReasonCode::kMetricsMissing);
  VariantState nan = variant(4, 1);
  nan.pods[0].running = std::nan("");
  const Decision n = policy.tick(one_model(60, nan))[0];
  CHECK(n.target_replicas == 4);  // no scale-down on vanished data
  CHECK(n.reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(n.reason.text(), Catch::StartsWith("hold at 4: pod pod-0 reported an invalid value"));

  HpaVariantState s;
  const HpaStep alone = hpa_step(s, nan, HpaConfig{}, 60);
  CHECK(alone.unusable->text() == "pod pod-0 reported an invalid value");
  CHECK(alone.state.recommendations.empty());  // nothing recorded from bad data
}

TEST_CASE("Replicas still starting stop the HPA from scaling up again for the same load") {
  HpaPolicy policy{HpaConfig{}};
  REQUIRE(policy.tick(one_model(0, variant(2, 64)))[0].target_replicas == 4);
  // 15 s later the two new pods are starting and the two ready ones still carry 64 each:
  // 128 / (32 x 4) = 1, inside the tolerance.
  const Decision d = policy.tick(one_model(15, variant(2, 64, 2)))[0];
  CHECK(d.target_replicas == 4);
  CHECK(d.reason.code == ReasonCode::kHold);
  CHECK_THAT(d.reason.text(), Catch::Contains("2 starting pod(s)"));
}

TEST_CASE("The GPU budget and the step limit bound the HPA") {
  PolicyConfig budget;
  budget.gpu_budget = 5;
  const Decision b = HpaPolicy(HpaConfig{}, budget).tick(one_model(0, variant(2, 96)))[0];  // wants 6
  CHECK(b.target_replicas == 5);
  CHECK(b.reason.code == ReasonCode::kBudgetLimited);

  PolicyConfig step;
  step.max_step_up = 1;
  step.max_step_down = 2;
  HpaConfig no_window;
  no_window.scale_down_stabilization_s = 0;
  HpaPolicy limited(no_window, step);
  const Decision up = limited.tick(one_model(0, variant(2, 96)))[0];
  CHECK(up.target_replicas == 3);
  CHECK_THAT(up.reason.text(), Catch::EndsWith("; limited to 3 by the step limit"));
  const Decision down = limited.tick(one_model(15, variant(8, 4)))[0];  // recommends 1
  CHECK(down.target_replicas == 6);
  CHECK(down.reason.code == ReasonCode::kScaleDown);
}

TEST_CASE("HPA save and restore give identical subsequent decisions") {
  PolicyConfig pc;
  pc.target_concurrency_per_replica = 16;
  auto a = make_policy("hpa", pc);
  auto b = make_policy("hpa", pc);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto input = [](double now, double concurrency) {
    TickInput t;
    t.now_s = now;
    ModelTickInput m;
    m.model = {"ns", "m"};
    VariantTickInput v;
    v.state = variant(4, concurrency);
    m.variants.push_back(v);
    t.models.push_back(m);
    return t;
  };
  // ceil(4 x 40 / 16) = 10, within the rate limit of a 30 s tick's two 15 s periods (4 -> 8 -> 16).
  CHECK(a.value()->tick(input(0, 40)).at(0).target_replicas == 10);
  a.value()->tick(input(30, 4));
  REQUIRE(b.value()->restore_state(nlohmann::json::parse(a.value()->save_state().dump())).ok());
  for (double now : {60.0, 200.0, 400.0}) CHECK(a.value()->tick(input(now, 4)) == b.value()->tick(input(now, 4)));
  CHECK(a.value()->save_state() == b.value()->save_state());
}

TEST_CASE("The scale-up rate limit compounds once per 15 s period the tick spans") {
  const HpaConfig c;
  CHECK(scale_up_limit(1, c, 15) == 5);    // max(1 + 4, 2)
  CHECK(scale_up_limit(1, c, 30) == 10);   // 5, then max(5 + 4, 10)
  CHECK(scale_up_limit(8, c, 30) == 32);   // 16, then 32
  CHECK(scale_up_limit(8, c, 20) == 16);   // one whole period
  CHECK(scale_up_limit(8, c, 5) == 16);    // never less than one
  HpaVariantState s;
  const HpaStep at30 = hpa_step(s, variant(1, 320), c, 0, 0, 30);
  CHECK(at30.request.target_replicas == 10);  // ceil(10) reached in two periods
  CHECK_THAT(at30.request.reason.text(), !Catch::Contains("limited"));
  const HpaStep at15 = hpa_step(s, variant(1, 320), c, 0, 0, 15);
  CHECK(at15.request.target_replicas == 5);
  CHECK_THAT(at15.request.reason.text(), Catch::Contains("scale-up limited to 5 this period"));
}
