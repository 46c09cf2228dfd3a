#include "domain/policies/saturation_token_policy.hpp"

#include <catch2/catch.hpp>

#include "domain/policy_fixture.hpp"

using namespace capstan;
using capstan::testing::Fleet;
using capstan::testing::tick_at;

namespace {

// The fixture's fleet with engine limits and the given KV usage and queue on every pod.
TickInput loaded(double now_s, double kv_usage, double queue) {
  TickInput in = tick_at(now_s, Fleet{2, 0, 0}, 6, queue);
  for (auto& v : in.models[0].variants) {
    v.state.spec.kv_capacity_tokens = 400000;
    v.state.spec.max_num_batched_tokens = 8192;
    for (auto& p : v.state.pods) {
      p.kv_usage = kv_usage;
      p.running = 40;
    }
  }
  return in;
}

PolicyConfig config() {
  PolicyConfig c;
  c.scale_down_cooldown_s = 0;
  return c;
}

}  // namespace

TEST_CASE("saturation-token adds replicas when token demand nears token capacity") {
  SaturationTokenPolicy p(config());
  const auto d = p.tick(loaded(30, 0.95, 20));
  REQUIRE(d.size() == 2);
  CHECK(d[0].target_replicas > 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
}

TEST_CASE("saturation-token holds a lightly loaded fleet at its floor") {
  SaturationTokenPolicy p(config());
  const auto d = p.tick(loaded(30, 0.30, 0));
  CHECK(d[0].target_replicas <= 2);
  CHECK(d[0].target_replicas >= 1);
}

TEST_CASE("saturation-token state round trip gives identical later decisions") {
  SaturationTokenPolicy a(config());
  for (int t = 1; t < 5; ++t) a.tick(loaded(30.0 * t, 0.5 + 0.05 * t, t));
  SaturationTokenPolicy b(config());
  REQUIRE(b.restore_state(nlohmann::json::parse(a.save_state().dump())).ok());
  for (int t = 5; t < 8; ++t) {
    const auto in = loaded(30.0 * t, 0.6, 2);
    CHECK(a.tick(in) == b.tick(in));
  }
  CHECK_FALSE(b.restore_state(nlohmann::json::object()).ok());
}
