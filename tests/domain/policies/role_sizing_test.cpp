// domain/role_sizing.*, and hybrid on a model split into prefill and decode variants:
// each role carries the whole request rate, sized from its own forward passes.
#include "domain/policies/role_sizing.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "domain/policies/hybrid_policy.hpp"

using namespace capstan;

namespace {

// The engines behind the fixture: wall time linear in the work of the iteration.
constexpr double kPrefillIntercept = 30, kPrefillPerToken = 0.06;
constexpr double kDecodeIntercept = 28, kDecodePerKvToken = 0.0005;
constexpr double kIsl = 512, kOsl = 128;

VariantTickInput variant(const std::string& name, Role role, int replicas, double model_rps, double queue = 0) {
  VariantTickInput v;
  v.state.spec.name = name;
  v.state.spec.role = role;
  v.state.spec.cost_per_replica = 12;
  v.state.spec.gpus_per_replica = 4;
  v.state.spec.min_replicas = 1;
  v.state.spec.max_replicas = 16;
  v.state.spec.max_num_batched_tokens = 8192;
  v.state.current_replicas = replicas;
  v.state.desired_replicas = replicas;
  v.configured_cold_start_s = 270;
  for (int i = 0; i < replicas; ++i) {
    PodMetrics p;
    p.pod = name + std::to_string(i);
    p.arrival_rate_rps = model_rps / replicas;
    p.avg_input_tokens = kIsl;
    p.avg_output_tokens = role == Role::kPrefill ? 1 : kOsl;  // a prefill pod generates the first token only
    p.avg_ttft_ms = role == Role::kPrefill ? 300 : 0;
    p.avg_itl_ms = role == Role::kDecode ? 60 : 0;
    p.queue_length = queue;
    p.seconds_since_start = 3600;
    v.state.pods.push_back(p);
  }
  for (int k = 1; k <= 16; ++k) {
    ForwardPassSample f;
    f.pod = name + "0";
    if (role == Role::kPrefill) {
      f.scheduled_prefill_tokens = kIsl * k;
      f.scheduled_prefill_requests = k;
      f.wall_time_ms = kPrefillIntercept + kPrefillPerToken * f.scheduled_prefill_tokens;
    } else {
      f.running_requests = 10.0 * k;
      f.decode_kv_tokens = f.running_requests * (kIsl + kOsl / 2);
      f.wall_time_ms = kDecodeIntercept + kDecodePerKvToken * f.decode_kv_tokens;
    }
    v.forward_passes.push_back(f);
  }
  return v;
}

TickInput split_tick(double now_s, int prefill, int decode, double rps, double decode_queue = 0,
                     double decode_waiting_per_pod = 0) {
  TickInput in;
  in.now_s = now_s;
  in.interval_s = 30;
  ModelTickInput m;
  m.model = {"prod", "llama-70b"};
  m.variants = {variant("prefill", Role::kPrefill, prefill, rps),
                variant("decode", Role::kDecode, decode, rps, decode_waiting_per_pod)};
  m.arrival_rate_rps = rps;
  m.decode_queue = decode_queue;
  in.models.push_back(m);
  return in;
}

PolicyConfig config() {
  PolicyConfig c;
  c.slo = {2000, 100};
  return c;
}

// Ticks a steady load in; returns the last decisions.
std::vector<Decision> steady(HybridPolicy& p, int prefill, int decode, double rps, int ticks = 8) {
  std::vector<Decision> d;
  for (int t = 0; t < ticks; ++t) d = p.tick(split_tick(30.0 * t, prefill, decode, rps));
  return d;
}

}  // namespace

TEST_CASE("A prefill replica serves the prompts of the largest chunk that runs within half the TTFT target") {
  const WallTimeFit fit{kPrefillPerToken, 0, kPrefillIntercept};
  VariantSpec spec;
  spec.role = Role::kPrefill;
  spec.max_num_batched_tokens = 8192;
  const TrafficSample shape{0, kIsl, kOsl};
  // A full 8,192-token chunk takes 521.5 ms, within 1 s: 16 prompts per 521.5 ms.
  CHECK(role_engine_rps(fit, spec, shape, {2000, 100}) == Approx(8192 / kIsl / (0.03 + 0.06 * 8.192)));
  // Half of 600 ms allows (300 - 30) / 0.06 = 4,500 tokens an iteration.
  CHECK(role_engine_rps(fit, spec, shape, {600, 100}) == Approx(4500 / kIsl / 0.3));
  // Unknown chunk size: vLLM's default of 2,048 tokens.
  spec.max_num_batched_tokens = 0;
  CHECK(role_engine_rps(fit, spec, shape, {2000, 100}) == Approx(2048 / kIsl / (0.03 + 0.06 * 2.048)));
  CHECK(role_engine_rps(fit, spec, {0, 0, 0}, {2000, 100}) == 0);
}

TEST_CASE("A decode replica serves the largest batch that meets the ITL target, by Little's law") {
  const WallTimeFit fit{0, kDecodePerKvToken, kDecodeIntercept};
  VariantSpec spec;
  spec.role = Role::kDecode;
  spec.max_batch_size = 256;
  // Context 512 + 64 tokens: 250 requests make a 100 ms iteration.
  CHECK(role_engine_rps(fit, spec, {0, kIsl, kOsl}, {2000, 100}) == Approx(250 / (kOsl * 0.1)));
  spec.max_batch_size = 100;
  CHECK(role_engine_rps(fit, spec, {0, kIsl, kOsl}, {2000, 100}) == Approx(100 / (kOsl * (28 + 0.0005 * 57600) / 1000)));
}

TEST_CASE("The request shape of a split model is read from its decode pods, which see whole answers") {
  const TickInput in = split_tick(0, 2, 2, 20);
  const auto shape = split_request_shape(in.models[0], 60);
  REQUIRE(shape);
  CHECK(shape->rate_rps == 20);
  CHECK(shape->avg_input_tokens == kIsl);
  CHECK(shape->avg_output_tokens == kOsl);
  TickInput idle = split_tick(0, 2, 2, 0);
  CHECK_FALSE(split_request_shape(idle.models[0], 60));
}

TEST_CASE("Each role's backlog is its pods' waiting requests plus its own queue at the router") {
  TickInput in = split_tick(0, 2, 3, 20, 40, 5);
  in.models[0].upstream_queue = 7;
  const RoleBacklog prefill = role_backlog(in.models[0], Role::kPrefill, 60);
  const RoleBacklog decode = role_backlog(in.models[0], Role::kDecode, 60);
  CHECK(prefill.router_queue == 7);
  CHECK(prefill.waiting == 0);
  CHECK(decode.router_queue == 40);
  CHECK(decode.waiting == 15);
  CHECK(decode.total() == 55);
}

TEST_CASE("hybrid sizes each role of a split model for the whole request rate") {
  HybridPolicy p(config());
  // Per replica: prefill 0.85 x 30.7 = 26.1 req/s, decode 0.85 x 19.5 = 16.6 req/s. At 60
  // req/s prefill needs 3 and decode 4; as alternatives for the same requests, 2 + 2 would
  // have been plenty.
  const auto d = steady(p, 2, 2, 60);
  REQUIRE(d.size() == 2);
  CHECK(d[0].variant == "prefill");
  CHECK(d[0].target_replicas == 3);
  CHECK(d[1].target_replicas == 4);
  CHECK(d[1].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(d[1].reason.text(), Catch::Contains("decode demand 60 req/s"));
  CHECK_THAT(d[0].reason.text(), Catch::Contains("prefill demand 60 req/s"));
  CHECK_THAT(d[1].reason.text(), Catch::Contains("forward-pass fit"));
}

TEST_CASE("hybrid holds a split model whose roles carry the load, and releases what neither needs") {
  HybridPolicy held(config());
  const auto d = steady(held, 3, 4, 60);
  CHECK(d[0].target_replicas == 3);
  CHECK(d[1].target_replicas == 4);
  PolicyConfig quick = config();
  quick.scale_down_cooldown_s = 0;
  HybridPolicy idle(quick);
  const auto low = steady(idle, 3, 4, 10);
  CHECK(low[0].target_replicas == 1);
  CHECK(low[1].target_replicas == 1);
}

TEST_CASE("hybrid releases nothing of a role while requests wait for it, and says so") {
  PolicyConfig quick = config();
  quick.scale_down_cooldown_s = 0;
  HybridPolicy p(quick);
  std::vector<Decision> d;
  // 10 req/s needs one replica of each role; 50 requests wait at each decode pod.
  for (int t = 0; t < 8; ++t) d = p.tick(split_tick(30.0 * t, 3, 4, 10, 0, 50));
  CHECK(d[0].target_replicas == 1);  // prefill has no queue: released
  CHECK(d[1].target_replicas == 4);  // decode holds what drains its queue
  CHECK_THAT(d[1].reason.text(), Catch::Contains("nothing released while 200 requests wait"));
  CHECK_THAT(d[0].reason.text(), !Catch::Contains("nothing released"));
}

TEST_CASE("hybrid counts the decode queue as backlog of the decode role only") {
  HybridPolicy p(config());
  steady(p, 2, 2, 30);
  // 3,000 prefilled requests wait for a decode replica. The two decode replicas (33 req/s)
  // would still hold some 2,000 of them when a new one can be ready: decode grows,
  // prefill does not.
  const auto d = p.tick(split_tick(240, 2, 2, 30, 3000));
  CHECK(d[0].target_replicas == 2);
  CHECK(d[1].target_replicas > 2);
  CHECK_THAT(d[1].reason.text(), Catch::Contains("decode queue 3000"));
  // A queue the two drain long before then asks for nothing.
  HybridPolicy calm(config());
  steady(calm, 2, 2, 30);
  CHECK(calm.tick(split_tick(240, 2, 2, 30, 300))[1].target_replicas == 2);
}

TEST_CASE("hybrid with a P:D band raises the lagging role with reason pd_band") {
  PolicyConfig c = config();
  c.pd_band = {0.8, 1.0};
  HybridPolicy p(c);
  const auto d = steady(p, 2, 2, 60);  // 3:4 wanted, below 0.8
  CHECK(d[0].target_replicas == 4);
  CHECK(d[1].target_replicas == 4);
  CHECK(d[0].reason.code == ReasonCode::kPdBand);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("prefill:decode 3:4 outside band [0.8, 1]: raise prefill 3 -> 4"));
}

TEST_CASE("hybrid holds a role of a split model that has no forward-pass fit yet") {
  HybridPolicy p(config());
  TickInput in = split_tick(0, 2, 2, 60);
  in.models[0].variants[1].forward_passes.clear();
  const auto d = p.tick(in);
  CHECK(d[1].target_replicas == 2);
  CHECK(d[1].reason.code == ReasonCode::kNoCapacityData);
  CHECK(d[0].target_replicas == 3);
}

TEST_CASE("hybrid's split sizing state survives save and restore") {
  HybridPolicy a(config());
  steady(a, 2, 2, 60, 4);
  HybridPolicy b(config());
  REQUIRE(b.restore_state(a.save_state()).ok());
  CHECK(b.save_state() == a.save_state());
  CHECK(a.tick(split_tick(150, 3, 4, 60)) == b.tick(split_tick(150, 3, 4, 60)));
}
