#include "domain/backlog_projection.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

TEST_CASE("a backlog grows by the excess of arrivals over ready capacity until the horizon") {
  CHECK(projected_backlog({100, 30, 20, {}}, 300) == Approx(100 + 10 * 300));
}

TEST_CASE("a backlog the ready replicas outrun drains to zero and stays there") {
  CHECK(projected_backlog({100, 10, 20, {}}, 300) == 0);
}

TEST_CASE("starting replicas drain the backlog from when they are ready") {
  // 10 req/s excess for 100 s (+1000), then 20 req/s to spare for 200 s (-4000).
  CHECK(projected_backlog({500, 30, 20, {{100, 30}}}, 300) == 0);
  // Ready only after the horizon: no help yet.
  CHECK(projected_backlog({500, 30, 20, {{400, 30}}}, 300) == Approx(500 + 10 * 300));
  // Two arrive, in any order: +10/s for 50 s, +0/s for 50 s (rate 30), -10/s after.
  CHECK(projected_backlog({1000, 30, 20, {{100, 10}, {50, 10}}}, 150) == Approx(1000 + 500 - 500));
}

TEST_CASE("nothing ready and nothing starting: every arrival waits") {
  CHECK(projected_backlog({0, 5, 0, {}}, 60) == Approx(300));
}
