#include "domain/policies/hybrid_reason.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace capstan;

TEST_CASE("A hybrid demand sentence names every figure it was sized from") {
  HybridDemandFigures f{12.5, 11.2, 329.6, 10, 40, 12.4, 14, 300, 9, false};
  CHECK(describe(f) ==
        "demand 12.5 req/s (forecast 11.2 req/s at t+330 s, observed 10 req/s + backlog 40, 12 when new replicas are "
        "ready), peak 14 req/s over the last 300 s, supply 9 req/s");
  f.queued = true;
  CHECK_THAT(describe(f), Catch::EndsWith(", nothing released while 40 requests wait"));
}

TEST_CASE("A hybrid capacity sentence says which bound set the capacity and the queueing already observed") {
  HybridCapacityFigures f{7.88, "mean", 2000, 100, 0.01, 0, 640, 25};
  CHECK(describe(f) == "lambda* 7.88 req/s per replica, est. TTFT 665 ms incl. 25 ms observed queueing");
  f.bound = "ttft-tail";
  CHECK_THAT(describe(f), Catch::Contains("(tail-bound: P(TTFT > 2000 ms) <= 0.01)"));
  f.bound = "itl-spread";
  f.itl_sized_ms = 72.64;
  CHECK_THAT(describe(f), Catch::Contains("(tail-bound: P(ITL > 100 ms) <= 0.01 by the measured spread of requests' "
                                          "ITL, mean ITL sized to 72.6 ms)"));
  f.bound = "served";
  CHECK_THAT(describe(f), Catch::Contains("(as served now within the SLO, above the learned model's)"));
  f.observed_wait_ms = std::numeric_limits<double>::infinity();
  CHECK_THAT(describe(f), Catch::EndsWith("est. TTFT 640 ms incl. unbounded observed queueing"));
}
