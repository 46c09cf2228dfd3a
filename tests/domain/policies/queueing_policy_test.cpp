#include "domain/policies/queueing_policy.hpp"

#include <catch2/catch.hpp>

#include "domain/policy_fixture.hpp"

using namespace capstan;

namespace {

// cheap and dear replicas, each pod at per_pod_rps.
TickInput tick_at(double now_s, int cheap, int dear, double per_pod_rps) {
  return capstan::testing::tick_at(now_s, {cheap, dear, 0}, per_pod_rps * (cheap + dear));
}

PolicyConfig config() {
  PolicyConfig c;
  c.slo = {1500, 20};
  return c;
}

}  // namespace

TEST_CASE("queueing scales up the cheaper variant when demand exceeds learned capacity") {
  QueueingPolicy p(config());
  std::vector<Decision> d;
  // lambda* of the truth at this SLO is about 6.0 req/s per replica; 6.5 req/s on 2+1
  // replicas is 19.5 req/s of demand, more than 3 replicas carry: learn, then ask for more.
  for (int t = 0; t < 12; ++t) d = p.tick(tick_at(30.0 * t, 2, 1, 6.5 + 0.1 * (t % 3)));
  REQUIRE(d.size() == 2);
  CHECK(d[0].variant == "cheap");
  CHECK(d[0].target_replicas > 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("lambda*"));
  CHECK(d[1].target_replicas == 1);
}

TEST_CASE("queueing holds the last good target when metrics vanish") {
  QueueingPolicy p(config());
  for (int t = 0; t < 8; ++t) p.tick(tick_at(30.0 * t, 2, 1, 6.0 + 0.1 * (t % 3)));
  TickInput gap = tick_at(240, 2, 1, 6.0);
  for (auto& v : gap.models[0].variants) v.state.pods.clear();
  const auto d = p.tick(gap);
  for (const Decision& x : d) {
    CHECK(x.reason.code == ReasonCode::kMetricsMissing);
    CHECK(x.target_replicas >= x.current_replicas);
  }
}

TEST_CASE("queueing state round trip gives identical later decisions") {
  QueueingPolicy a(config());
  for (int t = 0; t < 6; ++t) a.tick(tick_at(30.0 * t, 2, 1, 5.0 + 0.2 * t));
  QueueingPolicy b(config());
  REQUIRE(b.restore_state(nlohmann::json::parse(a.save_state().dump())).ok());
  for (int t = 6; t < 10; ++t) {
    const auto in = tick_at(30.0 * t, 2, 1, 5.0 + 0.2 * t);
    CHECK(a.tick(in) == b.tick(in));
  }
  CHECK(a.save_state() == b.save_state());
  CHECK_FALSE(b.restore_state(nlohmann::json{{"tuners", 3}}).ok());
}

namespace {

// Pods loaded past lambda* at `slo`: the policy must size by the one target and ask for more.
void scales_up_past_lambda_star(const SloTargets& slo) {
  PolicyConfig c;
  c.slo = slo;
  QueueingPolicy p(c);
  const double per_pod = capstan::testing::overloaded_rps(slo);
  std::vector<Decision> d;
  for (int t = 0; t < 12; ++t) d = p.tick(tick_at(30.0 * t, 2, 1, per_pod * (1 - 0.02 * (t % 3))));
  REQUIRE(d.size() == 2);
  CHECK(d[0].target_replicas > 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("lambda*") && Catch::Contains(describe(slo)));
}

}  // namespace

TEST_CASE("queueing with a TTFT-only SLO sizes by TTFT and scales up under load it cannot serve") {
  scales_up_past_lambda_star(capstan::testing::kTtftOnly);
}

TEST_CASE("queueing with an ITL-only SLO sizes by ITL and scales up under load it cannot serve") {
  scales_up_past_lambda_star(capstan::testing::kItlOnly);
}
