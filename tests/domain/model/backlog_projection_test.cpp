#include "domain/model/backlog_projection.hpp"

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

TEST_CASE("clients who give up bound the backlog: no more waits than arrives within their patience") {
  // 10 req/s excess for 300 s would leave 3,100; at 30 req/s a 60 s patience holds 1,800.
  CHECK(projected_backlog({100, 30, 20, {}, 60}, 300) == Approx(30 * 60));
  // Within the bound, patience changes nothing.
  CHECK(projected_backlog({100, 30, 20, {}, 600}, 300) == Approx(100 + 10 * 300));
  // Capacity arriving drains from the bound, not from the requests already lost:
  // 1,800 after 100 s (the cap), then -10/s for 100 s.
  CHECK(projected_backlog({0, 30, 0, {{100, 40}}, 60}, 200) == Approx(1800 - 1000));
  // What waits now was measured and stands even above the bound.
  CHECK(projected_backlog({5000, 30, 20, {}, 60}, 300) == Approx(5000));
}

TEST_CASE("hybrid's backlog demand drains no more than patient clients hold") {
  const BacklogOutlook impatient{100, 30, 20, {}, 60};
  BacklogOutlook patient = impatient;
  patient.patience_s = 0;
  const BacklogDemand a = backlog_demand(impatient, 2, 0, 600, 30);
  const BacklogDemand b = backlog_demand(patient, 2, 0, 600, 30);
  CHECK(a.backlog_ahead == Approx(1800));
  CHECK(b.backlog_ahead == Approx(100 + 10 * 600));
  CHECK(a.demand_rps == Approx(30 + 1800.0 / 600));
}
