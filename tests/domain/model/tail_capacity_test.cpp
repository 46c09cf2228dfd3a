#include "domain/model/tail_capacity.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

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

// size_with_tail makes the tail's search beside the sizing's, two chains at a time:
// both answers must be those of the two calls made one after the other, on analyzers
// that have answered nothing before.
TEST_CASE("Sizing with the tail gives the sizing and the tail-bound rate each as alone") {
  const struct {
    ServiceParams params;
    QueueConfig config;
    RequestSize size;
  } cases[] = {{{6.0, 0.016, 0.0004}, {64, 100}, {1000, 200}},
               {{34.0, 0.246, 0.0016}, {256, 100}, {2000, 300}},
               {{22.3, 0.127, 0.00079}, {300, 300}, {512, 128}}};
  const SloTargets slos[] = {{2000, 100}, {500, 50}, {2000, 0}, {300, 30}, {0, 100}, {100000, 400}};
  for (const auto& c : cases) {
    for (const SloTargets& slo : slos) {
      for (double p : {0.05, 0.2, 1e-6, 0.0}) {
        INFO(slo.ttft_ms << " ms TTFT, " << slo.itl_ms << " ms ITL, p " << p << ", alpha " << c.params.alpha_ms);
        const auto fresh = [&] { return QueueAnalyzer::create(c.params, c.config, c.size).value(); };
        const SizingWithTail together = size_with_tail(fresh(), slo, p);
        const SizingResult mean = fresh().size(slo);
        const Result<double> tail = tail_capacity_rps(fresh(), slo.ttft_ms, p);
        REQUIRE(together.mean.ok() == mean.ok());
        if (mean.ok()) {
          CHECK(std::bit_cast<std::uint64_t>(together.mean->lambda_star_rps) == std::bit_cast<std::uint64_t>(mean->lambda_star_rps));
          CHECK(std::bit_cast<std::uint64_t>(together.mean->at_lambda_star.ttft_ms) ==
                std::bit_cast<std::uint64_t>(mean->at_lambda_star.ttft_ms));
          CHECK(together.mean->evaluations == mean->evaluations);
        } else {
          CHECK(together.mean.error().message == mean.error().message);
        }
        REQUIRE(together.tail_rps.ok() == tail.ok());
        if (tail.ok()) {
          CHECK(std::bit_cast<std::uint64_t>(*together.tail_rps) == std::bit_cast<std::uint64_t>(*tail));
        } else {
          CHECK(together.tail_rps.error().message == tail.error().message);
        }
      }
    }
  }
}
