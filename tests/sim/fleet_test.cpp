#include "sim/fleet.hpp"

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"

using namespace capstan::sim;
using capstan::sim::testing::one_variant_fleet;
using capstan::sim::testing::request;

namespace {

// Processes fleet events up to t_s.
void run_until(Fleet& f, double t_s) {
  while (f.next_event_s() <= t_s) f.process_next_event();
}

}  // namespace

TEST_CASE("Cold start delays readiness by exactly pending_s + cold_start_s") {
  auto cfg = one_variant_fleet(0, 90.0);
  cfg.variants[0].pending_s = 10.0;
  Fleet f(cfg, 1);
  REQUIRE(f.set_desired("v", 1, 5.0).ok());
  CHECK(f.states()[0].pending == 1);
  run_until(f, 14.999);
  CHECK(f.states()[0].pending == 1);
  run_until(f, 15.0);
  CHECK(f.states()[0].loading == 1);
  run_until(f, 104.999);
  CHECK(f.states()[0].ready == 0);
  run_until(f, 105.0);
  CHECK(f.states()[0].ready == 1);
  CHECK(f.replicas()[0]->ready_s() == 105.0);
}

TEST_CASE("Scale from zero: requests wait upstream until the first replica is ready") {
  Fleet f(one_variant_fleet(0, 60.0), 1);
  f.route(request(0, 100, 10), 0);
  f.route(request(1, 100, 10), 1);
  CHECK(f.router().queue_size() == 2);
  CHECK(f.router().queue_bytes() == 2 * 100 * kQueuedBytesPerToken);
  REQUIRE(f.set_desired("v", 1, 2.0).ok());
  run_until(f, 61.9);
  CHECK(f.router().queue_size() == 2);
  run_until(f, 62.0);
  CHECK(f.router().queue_size() == 0);
  CHECK(f.router().queue_bytes() == 0);
  run_until(f, 1000);
  const auto out = f.take_outcomes();
  REQUIRE(out.size() == 2);
  for (const auto& o : out) {
    CHECK_FALSE(o.failed);
    CHECK(o.ttft_s > 60.0);
  }
}

TEST_CASE("Draining replicas finish their requests before they are gone") {
  Fleet f(one_variant_fleet(2, 30.0), 1);
  for (int i = 0; i < 6; ++i) f.route(request(0, 500, 100), 0);
  run_until(f, 0.5);
  REQUIRE(f.set_desired("v", 0, 0.5).ok());
  CHECK(f.states()[0].draining == 2);
  CHECK(f.states()[0].current == 0);
  f.route(request(0.6, 100, 10), 0.6);  // nothing ready: queued upstream
  CHECK(f.router().queue_size() == 1);
  run_until(f, 1000);
  CHECK(f.states()[0].draining == 0);
  const auto out = f.take_outcomes();
  CHECK(out.size() == 6);
  for (const auto& o : out) CHECK_FALSE(o.failed);
  for (const auto& r : f.replicas()) {
    CHECK(r->state() == ReplicaState::kGone);
    CHECK(r->gone_s() > 0.5);
  }
}

TEST_CASE("Scale-down drains replicas that are not ready before ready ones") {
  Fleet f(one_variant_fleet(1, 100.0), 1);
  REQUIRE(f.set_desired("v", 3, 0).ok());
  run_until(f, 10);
  REQUIRE(f.set_desired("v", 1, 10).ok());
  const auto s = f.states()[0];
  CHECK(s.ready == 1);
  CHECK(s.current == 1);
  CHECK(s.pending + s.loading == 0);
  // The two loading replicas were gone at once and cost 10 s each.
  CHECK(f.replica_seconds(20) == Approx(20 + 10 + 10));
  CHECK(f.scale_actions().size() == 2);
}

TEST_CASE("The router sends each request to the replica with the least outstanding work") {
  Fleet f(one_variant_fleet(3, 0), 1);
  f.route(request(0, 4000, 100), 0);
  f.route(request(0, 100, 10), 0);
  f.route(request(0, 100, 10), 0);
  for (const auto& r : f.replicas()) CHECK(f.router().attempts_success(r->name()) == 1);
  f.route(request(0, 100, 10), 0);
  CHECK(f.router().attempts_success(f.replicas()[0]->name()) == 1);
}

TEST_CASE("Desired counts are clamped to the variant bounds and unknown variants rejected") {
  Fleet f(one_variant_fleet(1, 0), 1);
  auto applied = f.set_desired("v", 50, 0);
  REQUIRE(applied.ok());
  CHECK(applied.value() == 10);
  CHECK_FALSE(f.set_desired("nope", 1, 0).ok());
}
