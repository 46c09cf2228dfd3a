#include "domain/policies/hybrid_safe_start.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

LatencyVerdict met() { return LatencyVerdict{false, false, 3, false}; }
LatencyVerdict queued() { return LatencyVerdict{false, false, 1.5, true}; }

}  // namespace

TEST_CASE("a met SLO holds the count: measured latency asks for nothing") {
  const MeasuredNeed need = measured_need(met(), 4, 8, 0, 300);
  CHECK_FALSE(need.missed);
  CHECK(need.replicas == 4);
}

TEST_CASE("a queue grows the fleet to carry arrivals and drain the backlog at the measured completion rate") {
  // 12 req/s + 600 waiting over 300 s = 14 req/s, x 1.15 over 1.5 req/s completed per replica: 10.7 -> 11.
  const MeasuredNeed need = measured_need(queued(), 2, 12, 600, 300);
  CHECK(need.missed);
  CHECK(need.demand_rps == Approx(14));
  CHECK(need.replicas == 11);
}

TEST_CASE("a miss never shrinks the fleet, and nothing completing to size by holds it") {
  CHECK(measured_need(queued(), 20, 12, 0, 300).replicas == 20);
  LatencyVerdict nothing = queued();
  nothing.completing_rps = 0;
  CHECK(measured_need(nothing, 3, 12, 600, 300).replicas == 3);
}
