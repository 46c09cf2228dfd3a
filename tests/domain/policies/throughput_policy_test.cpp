#include "domain/policies/throughput_policy.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "domain/policy_fixture.hpp"

using namespace capstan;

namespace {

PodMetrics pod(const std::string& name, double rps, double ttft_ms, double itl_ms, double running = 8) {
  PodMetrics p;
  p.pod = name;
  p.arrival_rate_rps = rps;
  p.avg_ttft_ms = ttft_ms;
  p.avg_itl_ms = itl_ms;
  p.avg_input_tokens = 3000;
  p.avg_output_tokens = 150;
  p.running = running;
  p.seconds_since_start = 600;  // past the tuner's 120 s warm-up
  return p;
}

VariantTickInput variant(const std::string& name, Role role, std::vector<PodMetrics> pods) {
  VariantTickInput in;
  in.state.spec.name = name;
  in.state.spec.role = role;
  in.state.spec.min_replicas = 1;
  in.state.spec.max_replicas = 50;
  in.state.current_replicas = static_cast<int>(pods.size());
  in.state.pods = std::move(pods);
  return in;
}

// Prefill: 40 000 tok/s/GPU at any prompt length; TTFT 20 ms at 100 tokens, 400 at 8000.
PrefillProfile prefill_profile() { return make_prefill_profile({{100, 8000}, {20, 400}, {40000, 40000}}).value(); }

// Decode at context 3075: ITL 10 ms / 10 000 tok/s at empty KV, 30 ms / 30 000 at full.
DecodeProfile decode_profile() {
  return make_decode_profile({{0.0, 1.0}, {3075, 3075}, {10, 30}, {10000, 30000}, 100000}).value();
}

TickInput one_model(double now_s, std::vector<VariantTickInput> variants) {
  TickInput t;
  t.now_s = now_s;
  ModelTickInput m;
  m.model = {"ns", "llama"};
  m.variants = std::move(variants);
  t.models.push_back(std::move(m));
  return t;
}

ThroughputConfig profiled(bool correction) {
  ThroughputConfig c;
  c.slo = {2000, 20};
  c.correction = correction;
  c.profiles["prefill"] = {prefill_profile(), std::nullopt};
  c.profiles["decode"] = {std::nullopt, decode_profile()};
  c.profiles["agg"] = {prefill_profile(), decode_profile()};
  return c;
}

}  // namespace

TEST_CASE("A prefill/decode pair is scaled per role from its profiles") {
  ThroughputPolicy policy(profiled(false));
  TickInput t;
  ModelTickInput m;
  m.model = {"ns", "llama"};
  // 200 req/s, ISL 3000, OSL 150. Prefill: 600 000 tok/s / 40 000 = 15.
  // Decode at ITL 20 ms: 20 000 tok/s per replica = 133.3 req/s -> 2.
  m.variants.push_back(variant("prefill", Role::kPrefill, {pod("p0", 200, 100, 0)}));
  m.variants.push_back(variant("decode", Role::kDecode, {pod("d0", 200, 0, 15)}));
  t.models.push_back(m);
  const auto d = policy.tick(t);
  REQUIRE(d.size() == 2);
  CHECK(d[0].target_replicas == 15);
  CHECK(d[1].target_replicas == 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(d[0].reason.text(), Catch::StartsWith("scale up 1 -> 15: predicted 200 req/s (ISL 3000, OSL 150) over 13.3333 req/s per replica at the SLO (profile"));
  CHECK_THAT(d[1].reason.text(), Catch::Contains("over 133.333 req/s per replica"));
}

TEST_CASE("Throughput floor with correction factors: faster prefill needs fewer, slower decode more") {
  const ThroughputConfig c = profiled(true);
  // Prefill observed TTFT is half of the profile's 159.49 ms at ISL 3000: c_p = 0.5.
  const double profile_ttft = prefill_ttft_ms(prefill_profile(), 3000);
  const ThroughputStep p = throughput_step({}, variant("prefill", Role::kPrefill, {pod("p0", 200, profile_ttft / 2, 0)}), c, 0);
  REQUIRE(p.floor.has_value());
  CHECK(p.floor->prefill_correction == Approx(0.5));
  CHECK(p.request.target_replicas == 8);  // ceil(15 x 0.5)
  // Decode: 16 running x 3075 / 100 000 = 0.492 KV -> profile ITL 19.84 ms; observed 39.68: c_d = 2.
  // The ITL target 20 / 2 = 10 ms -> 10 000 tok/s -> 66.7 req/s per replica -> 3.
  const ThroughputStep d = throughput_step({}, variant("decode", Role::kDecode, {pod("d0", 200, 0, 39.68, 16)}), c, 0);
  REQUIRE(d.floor.has_value());
  CHECK(d.floor->decode_correction == Approx(2.0));
  CHECK(d.request.target_replicas == 3);
  CHECK_THAT(d.request.reason.text(), Catch::Contains("correction ITL 2)"));
}

TEST_CASE("A variant serving both phases splits each replica's time between them") {
  // Prefill 13.33 req/s and decode 133.3 req/s per replica -> 12.12 req/s shared: 200 -> 17.
  const ThroughputStep s = throughput_step({}, variant("agg", Role::kBoth, {pod("a0", 200, 0, 0)}), profiled(false), 0);
  CHECK(s.floor->per_replica_rps == Approx(1.0 / (3000.0 / 40000 + 150.0 / 20000)));
  CHECK(s.request.target_replicas == 17);
}

TEST_CASE("Without a profile the learned queue model sizes the floor") {
  ThroughputConfig c;
  c.slo = {2000, 100};
  const ThroughputStep s = throughput_step({}, variant("gpu", Role::kBoth, {pod("a", 4, 300, 30), pod("b", 4, 300, 30)}), c, 0);
  REQUIRE(s.floor.has_value());
  CHECK(s.floor->source == PerfSource::kQueueModel);
  CHECK(s.state.tuner.has_value());
  CHECK(s.floor->per_replica_rps > 0);
  CHECK(s.request.target_replicas >= 1);
  CHECK_THAT(s.request.reason.text(), Catch::Contains("queue model"));
}

TEST_CASE("No predicted traffic brings the variant down to its minimum") {
  VariantTickInput in = variant("decode", Role::kDecode, {pod("a", 0, 0, 0, 0), pod("b", 0, 0, 0, 0), pod("c", 0, 0, 0, 0)});
  const ThroughputStep s = throughput_step({}, in, profiled(true), 0);
  CHECK(s.request.target_replicas == 1);
  CHECK(s.request.reason.code == ReasonCode::kScaleDown);
  CHECK_THAT(s.request.reason.text(), Catch::Contains("no traffic predicted"));
}

TEST_CASE("A scale-down waits while an action is in flight, and pending replicas count as capacity") {
  VariantTickInput in = variant("decode", Role::kDecode, {pod("a", 10, 0, 15)});
  in.state.current_replicas = 3;  // two more starting
  in.state.pending_replicas = 2;
  const ThroughputStep s = throughput_step({}, in, profiled(false), 0);
  CHECK(s.request.target_replicas == 3);
  CHECK(s.request.reason.code == ReasonCode::kPendingGuard);
}

TEST_CASE("Missing metrics hold the last good throughput target") {
  ThroughputPolicy policy(profiled(false));
  REQUIRE(policy.tick(one_model(0, {variant("prefill", Role::kPrefill, {pod("p0", 200, 100, 0)})}))[0].target_replicas == 15);
  // The fifteen have not landed and the one pod reports NaN.
  VariantTickInput gap = variant("prefill", Role::kPrefill, {pod("p0", std::nan(""), 100, 0)});
  const Decision held = policy.tick(one_model(30, {gap}))[0];
  CHECK(held.target_replicas == 15);
  CHECK(held.reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(held.reason.text(), Catch::StartsWith("hold at 15: pod p0 reported an invalid value"));

  // The step alone says why and holds at the current count; the finisher knows the last good target.
  const ThroughputStep step = throughput_step({}, gap, profiled(false), 30);
  CHECK(step.unusable->text() == "pod p0 reported an invalid value");
  CHECK(step.request.target_replicas == 1);
}

TEST_CASE("The GPU budget and the step limit bound the throughput policy") {
  const VariantTickInput prefill = variant("prefill", Role::kPrefill, {pod("p0", 200, 100, 0)});  // wants 15
  PolicyConfig budget;
  budget.gpu_budget = 6;
  const Decision b = ThroughputPolicy(profiled(false), budget).tick(one_model(0, {prefill}))[0];
  CHECK(b.target_replicas == 6);
  CHECK(b.reason.code == ReasonCode::kBudgetLimited);
  CHECK_THAT(b.reason.text(), Catch::Contains("GPU budget"));
  CHECK_THAT(b.reason.text(), Catch::Contains("wanted 15"));

  PolicyConfig step;
  step.max_step_up = 3;
  step.max_step_down = 1;
  ThroughputPolicy limited(profiled(false), step);
  const Decision up = limited.tick(one_model(0, {prefill}))[0];
  CHECK(up.target_replicas == 4);
  CHECK_THAT(up.reason.text(), Catch::EndsWith("; limited to 4 by the step limit"));
  // No traffic on 6 replicas: the floor is 1, one step down allows 5.
  VariantTickInput idle = variant("prefill", Role::kPrefill, {});
  for (int i = 0; i < 6; ++i) idle.state.pods.push_back(pod("p" + std::to_string(i), 0, 0, 0, 0));
  idle.state.current_replicas = 6;
  CHECK(limited.tick(one_model(30, {idle}))[0].target_replicas == 5);
}

TEST_CASE("Replicas still loading are capacity on its way: the same demand is not asked for twice") {
  ThroughputPolicy policy(profiled(false));
  REQUIRE(policy.tick(one_model(0, {variant("prefill", Role::kPrefill, {pod("p0", 200, 100, 0)})}))[0].target_replicas == 15);
  // Fourteen are loading; the one ready pod still takes all 200 req/s.
  VariantTickInput loading = variant("prefill", Role::kPrefill, {pod("p0", 200, 100, 0)});
  loading.state.current_replicas = 15;
  loading.state.pending_replicas = 14;
  loading.state.desired_replicas = 15;
  const Decision d = policy.tick(one_model(30, {loading}))[0];
  CHECK(d.target_replicas == 15);
  CHECK(d.reason.code == ReasonCode::kHold);
  // More demand waits for the loading replicas, as Dynamo writes no decision while the
  // previous one has not landed; once they are ready it is asked for.
  VariantTickInput more = loading;
  more.state.pods[0] = pod("p0", 300, 100, 0);
  const Decision waits = policy.tick(one_model(60, {more}))[0];
  CHECK(waits.target_replicas == 15);
  CHECK(waits.reason.code == ReasonCode::kPendingGuard);
  CHECK_THAT(waits.reason.text(), Catch::StartsWith("hold at 15: scale-up to 23 waits for the action in flight (14 replica(s) starting)"));
  VariantTickInput landed = variant("prefill", Role::kPrefill, {});
  for (int i = 0; i < 15; ++i) landed.state.pods.push_back(pod("p" + std::to_string(i), 20, 100, 0));
  CHECK(policy.tick(one_model(90, {landed}))[0].target_replicas == 23);  // ceil(300 / 13.33)
}

TEST_CASE("With forward passes the throughput floor bounds the load loop from below") {
  ThroughputConfig c = profiled(false);
  // 300 req/s at 133.3 per decode replica: floor 3. Engines are idle: the loop votes down.
  VariantTickInput in = variant("decode", Role::kDecode, {pod("a", 100, 0, 15), pod("b", 100, 0, 15), pod("c", 100, 0, 15)});
  for (int i = 0; i < 2; ++i) {
    for (const char* name : {"a", "b", "c"}) {
      ForwardPassSample f;
      f.pod = name;
      f.decode_kv_tokens = 1000.0 * (i + 1);
      f.running_requests = i + 1;
      f.wall_time_ms = 0.001 * f.decode_kv_tokens + 2;
      in.forward_passes.push_back(f);
    }
  }
  const ThroughputStep s = throughput_step({}, in, c, 0);
  CHECK(s.request.target_replicas == 3);
  CHECK_THAT(s.request.reason.text(), Catch::Contains("refused by the floor of 3"));
  CHECK_THAT(s.request.reason.text(), Catch::Contains("throughput floor 3: predicted 300 req/s"));
}

TEST_CASE("Throughput save and restore give identical subsequent decisions") {
  PolicyConfig pc;
  pc.predictor = "holt";
  auto a = make_policy("throughput", pc);
  auto b = make_policy("throughput", pc);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto input = [](double now, double rps) {
    TickInput t;
    t.now_s = now;
    ModelTickInput m;
    m.model = {"ns", "m"};
    m.variants.push_back(variant("gpu", Role::kBoth, {pod("a", rps, 300, 30), pod("b", rps * 1.1, 320, 31)}));
    t.models.push_back(m);
    return t;
  };
  for (double now : {0.0, 30.0, 60.0}) a.value()->tick(input(now, 3 + now / 30));
  REQUIRE(b.value()->restore_state(nlohmann::json::parse(a.value()->save_state().dump())).ok());
  for (double now : {90.0, 120.0, 150.0}) {
    CHECK(a.value()->tick(input(now, 3 + now / 30)) == b.value()->tick(input(now, 3 + now / 30)));
  }
  CHECK(a.value()->save_state() == b.value()->save_state());
}

namespace {

// The fixture's pods loaded past lambda* at `slo`, no profile, no forward passes: the
// learned queue model sizes the floor by the one target.
void throughput_scales_up_past_lambda_star(const SloTargets& slo) {
  ThroughputConfig c;
  c.slo = slo;
  ThroughputPolicy policy(c);
  const double rps = 2 * capstan::testing::overloaded_rps(slo);
  std::vector<Decision> d;
  for (int t = 0; t < 10; ++t) d = policy.tick(capstan::testing::tick_at(30.0 * t, {2, 0, 0}, rps * (1 - 0.02 * (t % 3))));
  REQUIRE(d.size() == 2);
  CHECK(d[0].target_replicas > 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("at the SLO (queue model"));
}

}  // namespace

TEST_CASE("throughput with a TTFT-only SLO sizes its floor by TTFT and scales up under load it cannot serve") {
  throughput_scales_up_past_lambda_star(capstan::testing::kTtftOnly);
}

TEST_CASE("throughput with an ITL-only SLO sizes its floor by ITL and scales up under load it cannot serve") {
  throughput_scales_up_past_lambda_star(capstan::testing::kItlOnly);
}

TEST_CASE("A decode profile without an ITL target is sized at its best throughput, not its slowest") {
  ThroughputConfig c = profiled(false);
  c.slo = {2000, 0};
  // Full KV: 30 000 tok/s per replica / OSL 150 = 200 req/s; 1000 req/s needs 5.
  const ThroughputStep d = throughput_step({}, variant("decode", Role::kDecode, {pod("d0", 1000, 0, 25)}), c, 0);
  REQUIRE(d.floor.has_value());
  CHECK(d.floor->per_replica_rps == Approx(200));
  CHECK(d.request.target_replicas == 5);
}

TEST_CASE("throughput reports each variant's forecast and profiled capacity as events") {
  ThroughputPolicy policy(profiled(false));
  TickInput t;
  ModelTickInput m;
  m.model = {"ns", "llama"};
  m.variants.push_back(variant("prefill", Role::kPrefill, {pod("p0", 200, 100, 0)}));
  m.variants.push_back(variant("decode", Role::kDecode, {pod("d0", 200, 0, 15)}));
  t.models.push_back(m);
  const auto d = policy.tick(t);
  std::vector<const ForecastMade*> forecasts;
  std::vector<const CapacitySized*> capacities;
  for (const TickEvent& e : policy.last_events()) {
    if (auto* f = std::get_if<ForecastMade>(&e)) forecasts.push_back(f);
    if (auto* c = std::get_if<CapacitySized>(&e)) capacities.push_back(c);
  }
  REQUIRE(forecasts.size() == 2);
  CHECK(forecasts[0]->rate_rps == Approx(200));
  CHECK(forecasts[0]->observed_rps == Approx(200));
  REQUIRE(capacities.size() == 2);
  CHECK(capacities[0]->variant == "prefill");
  CHECK(capacities[0]->bound == "profile");
  CHECK(capacities[0]->required_replicas == d[0].target_replicas);
  CHECK(capacities[1]->variant == "decode");
  CHECK(capacities[1]->required_replicas == d[1].target_replicas);
}
