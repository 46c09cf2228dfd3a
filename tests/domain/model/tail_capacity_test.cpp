#include "domain/model/tail_capacity.hpp"

#include <cmath>

#include <catch2/catch.hpp>

using namespace capstan;

namespace {
QueueAnalyzer qa() { return QueueAnalyzer::create({6.0, 0.016, 0.0004}, {64, 100}, {1000, 200}).value(); }
}  // namespace

TEST_CASE("The tail-bound rate keeps the exponential-tail estimate at the target") {
  const auto q = qa();
  auto r = tail_capacity_rps(q, 2000, 0.05);
  REQUIRE(r.ok());
  auto m = q.analyze(*r);
  REQUIRE(m.ok());
  const double bound = (m->ttft_ms - m->avg_wait_ms) + m->avg_wait_ms * std::log(20.0);
  CHECK(bound == Approx(2000).epsilon(1e-4));
}

TEST_CASE("A tighter tail probability never allows a higher rate") {
  const auto q = qa();
  const double loose = tail_capacity_rps(q, 2000, 0.2).value();
  const double tight = tail_capacity_rps(q, 2000, 0.01).value();
  CHECK(tight <= loose);
  // And the tail bound is below the rate whose mean TTFT meets the target.
  CHECK(tight <= q.size({2000, 0})->lambda_star_rps);
}

TEST_CASE("Tail capacity rejects bad input and unreachable targets") {
  const auto q = qa();
  CHECK_FALSE(tail_capacity_rps(q, 2000, 0).ok());
  CHECK_FALSE(tail_capacity_rps(q, 2000, 1).ok());
  CHECK_FALSE(tail_capacity_rps(q, -1, 0.05).ok());
  auto r = tail_capacity_rps(q, 1, 0.05);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kTargetUnreachable);
}
