#include "domain/policies/hybrid_correction.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

const SloTargets kSlo{2000, 100};

// A variant of `pods` ready pods, each running `running` requests of 200 output tokens
// at the given mean latencies.
VariantState variant(int pods, double ttft_ms, double itl_ms, double running = 100) {
  VariantState v;
  v.spec.name = "h100";
  v.current_replicas = pods;
  for (int i = 0; i < pods; ++i) {
    PodMetrics p;
    p.pod = "p" + std::to_string(i);
    p.arrival_rate_rps = 3;
    p.avg_ttft_ms = ttft_ms;
    p.avg_itl_ms = itl_ms;
    p.avg_output_tokens = 200;
    p.running = running;
    p.seconds_since_start = 3600;
    v.pods.push_back(p);
  }
  return v;
}

}  // namespace

TEST_CASE("measured latency within both targets is no miss") {
  const auto verdict = judge_latency(variant(2, 300, 60), kSlo, 60, 120);
  REQUIRE(verdict);
  CHECK_FALSE(verdict->missed);
}

TEST_CASE("a mean TTFT over its target is a miss, with what the replicas complete by Little's law") {
  // 100 running requests, each 200 tokens at 125 ms: 25 s in the batch, 4 req/s.
  const auto verdict = judge_latency(variant(2, 40000, 125), kSlo, 60, 120);
  REQUIRE(verdict);
  CHECK(verdict->missed);
  CHECK(verdict->completing_rps == Approx(4));
}

TEST_CASE("a TTFT over its target behind a queue is the backlog's, not a miss; an ITL over it is") {
  VariantState draining = variant(2, 40000, 60);
  for (PodMetrics& p : draining.pods) p.queue_length = 50;
  CHECK_FALSE(judge_latency(draining, kSlo, 60, 120)->missed);
  // ...and so is one whose backlog waits at the router.
  CHECK_FALSE(judge_latency(variant(2, 40000, 60), kSlo, 60, 120, true)->missed);
  VariantState slow = variant(2, 40000, 150);
  for (PodMetrics& p : slow.pods) p.queue_length = 50;
  const auto verdict = judge_latency(slow, kSlo, 60, 120);
  CHECK(verdict->missed);
  CHECK(verdict->queued);
}

TEST_CASE("pods still warming up or with stale samples give no verdict") {
  VariantState warming = variant(1, 40000, 125);
  warming.pods[0].seconds_since_start = 30;
  CHECK_FALSE(judge_latency(warming, kSlo, 60, 120));
  VariantState stale = variant(1, 40000, 125);
  stale.pods[0].sample_age_s = 600;
  CHECK_FALSE(judge_latency(stale, kSlo, 60, 120));
}

TEST_CASE("a learned capacity the measured latency contradicts drops to what the replicas complete") {
  // Learned 12 req/s per replica while the drowning replicas complete 3.
  const LatencyVerdict drowning{false, true, 3, false};
  CHECK(next_correction(1, drowning, 12, false, 30) == Approx(0.25 * kShrinkWhileMissing));
  // While replicas start, a miss is the transient they are for: nothing moves.
  CHECK(next_correction(1, drowning, 12, true, 30) == 1);
  // All asked-for capacity is there and the SLO is still missed: trusted less again.
  CHECK(next_correction(0.25, drowning, 12, false, 30) == Approx(0.25 * kShrinkWhileMissing));
  // Never below the floor, however long the miss lasts.
  double k = 1;
  for (int t = 0; t < 200; ++t) k = next_correction(k, drowning, 12, false, 30);
  CHECK(k == Approx(kMinCorrection));
  // A miss with requests waiting is the backlog's: nothing moves.
  const LatencyVerdict backlog{false, true, 3, true};
  CHECK(next_correction(0.5, backlog, 12, false, 30) == Approx(0.5));
}

TEST_CASE("a correction relaxes back towards the learned model while the SLO holds, over an hour") {
  const LatencyVerdict fine{false, false, 0, false};
  double k = 0.25;
  for (int t = 0; t < 120; ++t) k = next_correction(k, fine, 12, false, 30);  // one hour
  CHECK(k == Approx(1 - 0.75 * std::exp(-1.0)).epsilon(1e-6));
  // A miss on pods sent more than the learned capacity is the overload's: kept as it is.
  CHECK(next_correction(0.4, LatencyVerdict{true, true, 3, false}, 12, false, 30) == 0.4);
  CHECK(judge_latency(variant(2, 300, 150), kSlo, 60, 120, false, 2.5)->overloaded);
  CHECK_FALSE(judge_latency(variant(2, 300, 150), kSlo, 60, 120, false, 12)->overloaded);
  // Nothing to judge by: the correction is kept as it is.
  CHECK(next_correction(0.4, std::nullopt, 12, false, 30) == 0.4);
}
