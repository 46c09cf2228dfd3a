#include "domain/load_policy.hpp"

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
  CHECK_THAT(step.request.reason.text, Catch::StartsWith("scale up 2 -> 3: estimated ITL 111-131 ms"));
  CHECK_THAT(step.request.reason.text, Catch::Contains("on all 2 engine(s)"));
}

TEST_CASE("One engine under the target holds: scale-up needs every engine above it") {
  const LoadStep step = decode_tick(trained_decode(), 2, {10000, 5000});  // 111 and 61 ms
  CHECK(step.request.target_replicas == 2);
  CHECK(step.request.reason.code == ReasonCode::kHold);
}

TEST_CASE("Every engine below target x sensitivity scales down by one; between holds") {
  const LoadStep down = decode_tick(trained_decode(), 3, {5000, 5000, 6000});  // 61, 61, 71 < 80
  CHECK(down.request.target_replicas == 2);
  CHECK(down.request.reason.code == ReasonCode::kScaleDown);
  CHECK_THAT(down.request.reason.text, Catch::Contains("below 0.8 x target"));
  const LoadStep between = decode_tick(trained_decode(), 3, {5000, 5000, 7500});  // 86 ms
  CHECK(between.request.target_replicas == 3);
  CHECK(between.request.reason.code == ReasonCode::kHold);
}

TEST_CASE("A single ready engine is never scaled down by the load loop") {
  const LoadStep step = decode_tick(trained_decode(), 1, {1000}, 100, 0);
  CHECK(step.request.target_replicas == 1);
  CHECK_THAT(step.request.reason.text, Catch::Contains("one ready engine"));
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
  const LoadStep up = decode_tick(trained_decode(), 2, {10000, 12000});
  REQUIRE(up.request.target_replicas == 3);
  VariantTickInput in = variant(Role::kDecode, 2);
  in.state.desired_replicas = 3;
  const LoadStep gap = load_step(up.state, in, decode_config(), 200, 1);
  CHECK(gap.request.target_replicas == 3);
  CHECK(gap.request.reason.code == ReasonCode::kMetricsMissing);

  const LoadStep down = decode_tick(trained_decode(), 3, {5000, 5000, 5000});
  REQUIRE(down.request.target_replicas == 2);
  const LoadStep vanished = load_step(down.state, variant(Role::kDecode, 3), decode_config(), 200, 1);
  CHECK(vanished.request.target_replicas == 3);  // data vanished: no scale-down
  CHECK(vanished.request.reason.code == ReasonCode::kMetricsMissing);
}

TEST_CASE("Fewer engines reporting than are ready, or non-finite passes, count as missing metrics") {
  const LoadStep partial = decode_tick(trained_decode(), 3, {5000, 5000});
  CHECK(partial.request.reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(partial.request.reason.text, Catch::Contains("2 of 3 ready replicas"));
  VariantTickInput in = variant(Role::kDecode, 1);
  ForwardPassSample bad = decode_pass("a", 5000);
  bad.wall_time_ms = std::numeric_limits<double>::quiet_NaN();
  in.forward_passes.push_back(bad);
  const LoadStep nan = load_step(trained_decode(), in, decode_config(), 100, 1);
  CHECK(nan.request.reason.code == ReasonCode::kMetricsMissing);
  CHECK(nan.state.regression.samples.size() == 5);  // the NaN pass was not learned from
}

TEST_CASE("The floor refuses a scale-down below it and raises a lower count to it") {
  const LoadStep refused = decode_tick(trained_decode(), 2, {5000, 5000}, 100, 2);
  CHECK(refused.request.target_replicas == 2);
  CHECK_THAT(refused.request.reason.text, Catch::Contains("refused by the floor of 2"));
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
