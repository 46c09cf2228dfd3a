#include "domain/hybrid_policy.hpp"

#include <catch2/catch.hpp>

#include "policy_fixture.hpp"

using namespace capstan;
using capstan::testing::Fleet;
using capstan::testing::tick_at;

namespace {

PolicyConfig config() {
  PolicyConfig c;
  c.slo = {1500, 40};
  c.scale_down_cooldown_s = 0;
  return c;
}

int warm_up(HybridPolicy& p, const Fleet& f, double rps, int ticks = 10) {
  int target = f.cheap;
  for (int t = 0; t < ticks; ++t) target = p.tick(tick_at(30.0 * t, f, rps * (1 + 0.02 * (t % 3))))[0].target_replicas;
  return target;
}

}  // namespace

TEST_CASE("hybrid releases a replica the load does not need") {
  HybridPolicy p(config());
  const Fleet f{3, 0, 0};
  warm_up(p, f, 6);  // 2 req/s per replica: two replicas carry it with margin
  CHECK(p.tick(tick_at(330, f, 6))[0].target_replicas == 2);
}

TEST_CASE("hybrid holds a steady load that its replicas carry") {
  HybridPolicy p(config());
  const Fleet f{3, 0, 0};
  warm_up(p, f, 15);  // 5 req/s per replica, capacity ~7.5 at this SLO: 2 would not do
  const auto d = p.tick(tick_at(330, f, 15));
  CHECK(d[0].target_replicas == 3);
  CHECK(d[1].target_replicas == 0);
}

TEST_CASE("hybrid sizes for a backlog it observes, not only for modelled service time") {
  HybridPolicy p(config());
  const Fleet f{2, 0, 0};
  warm_up(p, f, 6);
  const int calm = p.tick(tick_at(330, f, 6))[0].target_replicas;
  const auto burst = p.tick(tick_at(360, f, 6, 40, 400));
  CHECK(burst[0].target_replicas > calm);
  CHECK_THAT(burst[0].reason.text, Catch::Contains("backlog 480"));
  CHECK_THAT(burst[0].reason.text, Catch::Contains("observed queueing"));
}

TEST_CASE("hybrid counts starting replicas as coming capacity") {
  HybridPolicy p(config());
  warm_up(p, Fleet{2, 0, 0}, 12);
  const int wanted = p.tick(tick_at(330, Fleet{2, 0, 0}, 15))[0].target_replicas;
  REQUIRE(wanted > 2);
  // The extra replicas are loading: asking again for the same demand adds nothing.
  const auto again = p.tick(tick_at(360, Fleet{wanted, 0, wanted - 2}, 15));
  CHECK(again[0].target_replicas == wanted);
}

TEST_CASE("hybrid puts new capacity on the more cost-efficient variant") {
  HybridPolicy p(config());
  warm_up(p, Fleet{2, 0, 0}, 10);
  const auto d = p.tick(tick_at(330, Fleet{2, 0, 0}, 17));
  CHECK(d[0].target_replicas > 2);
  CHECK(d[1].target_replicas == 0);  // "dear" has nothing learned and costs more
}

TEST_CASE("hybrid's horizon follows the cold start the fleet measured") {
  HybridPolicy p(config());
  const Fleet f{2, 0, 0};
  for (int t = 0; t < 6; ++t) p.tick(tick_at(30.0 * t, f, 6, 0, 0, t < 4 ? std::vector<double>{900} : std::vector<double>{}));
  const auto d = p.tick(tick_at(180, f, 6));
  CHECK_THAT(d[0].reason.text, Catch::Contains("t+930 s"));
}

TEST_CASE("hybrid state round trip gives identical later decisions") {
  HybridPolicy a(config());
  warm_up(a, Fleet{2, 0, 0}, 8, 6);
  HybridPolicy b(config());
  REQUIRE(b.restore_state(nlohmann::json::parse(a.save_state().dump())).ok());
  for (int t = 6; t < 10; ++t) {
    const auto in = tick_at(30.0 * t, Fleet{2, 0, 0}, 8 + t);
    CHECK(a.tick(in) == b.tick(in));
  }
}

TEST_CASE("hybrid keeps capacity for a burst's peak for one cold start + cooldown") {
  PolicyConfig c = config();
  c.scale_down_cooldown_s = 300;
  HybridPolicy p(c);
  warm_up(p, Fleet{4, 0, 0}, 24);  // a burst at 6 req/s per replica
  // Load falls to a trickle: the capacity stays while the burst is within
  // cold start (300 s) + one tick + cooldown (300 s)...
  int t = 10;
  for (; 30.0 * t <= 270 + 630; ++t) {
    CHECK(p.tick(tick_at(30.0 * t, Fleet{4, 0, 0}, 2))[0].target_replicas == 4);
  }
  // ...and goes once the peak has left the window.
  const Decision next = p.tick(tick_at(30.0 * t, Fleet{4, 0, 0}, 2))[0];
  INFO(next.reason.text);
  CHECK(next.target_replicas < 4);
}

TEST_CASE("hybrid does not release a replica before it has learned any capacity") {
  HybridPolicy p(config());
  TickInput in = tick_at(30, Fleet{4, 0, 0}, 0.0001);
  for (auto& v : in.models[0].variants) {
    for (auto& pod : v.state.pods) pod.arrival_rate_rps = 0;  // nothing to learn from yet
  }
  in.models[0].arrival_rate_rps = 0;
  const auto d = p.tick(in);
  CHECK(d[0].target_replicas == 4);
  CHECK(d[0].reason.code == ReasonCode::kNoCapacityData);
}
