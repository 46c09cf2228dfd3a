#include "domain/policies/erlang_policy.hpp"

#include <catch2/catch.hpp>

#include "domain/policy_fixture.hpp"

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
}  // namespace

TEST_CASE("erlang adds Erlang-C servers for a rising forecast and says why") {
  ErlangPolicy p(config());
  for (int t = 0; t < 8; ++t) p.tick(tick_at(30.0 * t, Fleet{2, 0, 0}, 6));
  std::vector<Decision> d;
  for (int t = 8; t < 14; ++t) d = p.tick(tick_at(30.0 * t, Fleet{2, 0, 0}, 6 + 1.5 * (t - 7)));
  CHECK(d[0].target_replicas > 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("Erlang-C needs"));
  CHECK_THAT(d[0].reason.text(), Catch::Contains("warm pool"));
  CHECK(d[1].target_replicas == 0);
}

TEST_CASE("erlang keeps enough servers that P(wait > SLO) stays under the bound") {
  ErlangPolicy p(config());
  std::vector<Decision> d;
  for (int t = 0; t < 10; ++t) d = p.tick(tick_at(30.0 * t, Fleet{3, 0, 0}, 12));
  CHECK(d[0].target_replicas >= 2);
  CHECK(d[0].target_replicas <= 4);
}

TEST_CASE("erlang state round trip gives identical later decisions") {
  ErlangPolicy a(config());
  for (int t = 0; t < 6; ++t) a.tick(tick_at(30.0 * t, Fleet{2, 0, 0}, 6 + t));
  ErlangPolicy b(config());
  REQUIRE(b.restore_state(nlohmann::json::parse(a.save_state().dump())).ok());
  for (int t = 6; t < 10; ++t) {
    const auto in = tick_at(30.0 * t, Fleet{2, 0, 0}, 6 + t * 0.5);
    CHECK(a.tick(in) == b.tick(in));
  }
}

namespace {

std::vector<Decision> erlang_past_lambda_star(const SloTargets& slo) {
  PolicyConfig c = config();
  c.slo = slo;
  ErlangPolicy p(c);
  const double rps = 2 * capstan::testing::overloaded_rps(slo);
  std::vector<Decision> d;
  for (int t = 0; t < 10; ++t) d = p.tick(tick_at(30.0 * t, Fleet{2, 0, 0}, rps * (1 - 0.02 * (t % 3))));
  REQUIRE(d.size() == 2);
  CHECK(d[0].target_replicas > 2);
  CHECK(d[0].reason.code == ReasonCode::kScaleUp);
  return d;
}

}  // namespace

TEST_CASE("erlang with a TTFT-only SLO bounds the wait by it and scales up under load it cannot serve") {
  const auto d = erlang_past_lambda_star(capstan::testing::kTtftOnly);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("Erlang-C needs"));
}

TEST_CASE("erlang with an ITL-only SLO sizes by lambda* alone, says so, and scales up under load it cannot serve") {
  const auto d = erlang_past_lambda_star(capstan::testing::kItlOnly);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("no TTFT target to bound the wait by"));
  CHECK_THAT(d[0].reason.text(), !Catch::Contains("Erlang-C needs") && !Catch::Contains("warm pool"));
}

TEST_CASE("erlang's tick reports what it learned, forecast and sized as events") {
  ErlangPolicy p(config());
  for (int t = 0; t < 8; ++t) p.tick(tick_at(30.0 * t, Fleet{2, 0, 0}, 6));
  const std::vector<Decision> d = p.tick(tick_at(240, Fleet{2, 0, 0}, 9));
  const ForecastMade* forecast = nullptr;
  const CapacitySized* capacity = nullptr;
  int params = 0, decisions = 0;
  for (const TickEvent& e : p.last_events()) {
    if (auto* f = std::get_if<ForecastMade>(&e)) forecast = f;
    if (auto* c = std::get_if<CapacitySized>(&e)) capacity = c;
    params += std::holds_alternative<ParamsLearned>(e);
    decisions += std::holds_alternative<DecisionMade>(e);
  }
  REQUIRE(forecast != nullptr);
  CHECK(forecast->predictor == "holt");
  CHECK(forecast->observed_rps == 9);
  CHECK(forecast->horizon_s > 0);
  REQUIRE(capacity != nullptr);
  CHECK(capacity->variant == d[0].variant);
  CHECK(capacity->bound == "erlang-c");
  CHECK(capacity->per_replica_rps > 0);
  CHECK(params >= 1);  // the EKF stepped on the variant that served
  CHECK(decisions == static_cast<int>(d.size()));
}
