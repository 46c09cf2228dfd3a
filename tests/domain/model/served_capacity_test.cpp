#include "domain/model/served_capacity.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capstan;

namespace {

const SloTargets kSlo{2000, 100};

PodMetrics pod(double rps, double ttft_ms, double itl_ms, double queue = 0) {
  PodMetrics p;
  p.pod = "p";
  p.arrival_rate_rps = rps;
  p.avg_ttft_ms = ttft_ms;
  p.avg_itl_ms = itl_ms;
  p.queue_length = queue;
  p.seconds_since_start = 3600;
  return p;
}

VariantState variant(std::vector<PodMetrics> pods) {
  VariantState v;
  v.spec.name = "h100";
  v.current_replicas = static_cast<int>(pods.size());
  v.pods = std::move(pods);
  return v;
}

std::optional<double> served(const VariantState& v) { return served_within_slo_rps(v, kSlo, 60, 120); }

}  // namespace

TEST_CASE("Replicas well inside both targets with no queue serve at least their arrival rate") {
  const auto r = served(variant({pod(3, 250, 39), pod(4, 300, 45)}));
  REQUIRE(r);
  CHECK(*r == Approx(3.5));
}

TEST_CASE("No floor when the replicas' means are near a target, one is over it, queues, or reports nothing usable") {
  CHECK_FALSE(served(variant({pod(3, 250, 55), pod(4, 300, 65)})));    // pooled ITL above 0.6 x 100 ms
  CHECK_FALSE(served(variant({pod(3, 1300, 39)})));                     // TTFT above 0.6 x 2 s
  CHECK_FALSE(served(variant({pod(6, 250, 30), pod(1, 300, 101)})));   // one replica's ITL over the target
  CHECK_FALSE(served(variant({pod(6, 250, 30), pod(1, 2100, 50)})));   // one replica's TTFT over the target
  CHECK_FALSE(served(variant({pod(3, 250, 39, 5)})));                   // a standing queue
  CHECK_FALSE(served(variant({pod(3, 250, NAN)})));                     // not finite
  CHECK_FALSE(served(variant({pod(0, 0, 0)})));                         // no traffic
  CHECK_FALSE(served(variant({})));                                     // no replica
  PodMetrics stale = pod(3, 250, 39);
  stale.sample_age_s = 300;
  CHECK_FALSE(served(variant({stale})));
}

TEST_CASE("The SLO counts requests, not replicas: one replica near a target among many within it still serves") {
  // A long prompt raises the ITL of the requests batched with it on one replica: its
  // mean is 70 ms, over 0.6 of the target, while the requests of all replicas together
  // average 45 ms (Mooncake, 24 H100 at 0.154 req/s each, two of them over 0.6).
  const auto r = served(variant({pod(3, 250, 39), pod(4, 300, 40), pod(3, 280, 70)}));
  REQUIRE(r);
  CHECK(*r == Approx(10.0 / 3));
  // Their requests' own ITLs pooled: 2 of 300 over the target is within 0.01, not 2 of 100.
  PodMetrics a = pod(3, 250, 39), b = pod(3, 250, 45), c = pod(3, 250, 41);
  a.request_itl = {{50, 100, 150}, {100, 100, 100}, 100, 100 * 39.0};
  b.request_itl = {{50, 100, 150}, {90, 98, 100}, 100, 100 * 45.0};
  c.request_itl = a.request_itl;
  CHECK(served_within_slo_rps(variant({a, b, c}), kSlo, 60, 120, 0.01));
  CHECK_FALSE(served_within_slo_rps(variant({b}), kSlo, 60, 120, 0.01));
}

TEST_CASE("A target of 0 is not constrained, and a replica still warming up is left out") {
  CHECK(served_within_slo_rps(variant({pod(3, 5000, 39)}), {0, 100}, 60, 120));
  PodMetrics warming = pod(9, 1900, 95);
  warming.seconds_since_start = 60;
  const auto r = served(variant({pod(3, 250, 39), warming}));
  REQUIRE(r);
  CHECK(*r == Approx(3));
  CHECK_FALSE(served(variant({warming})));
}

TEST_CASE("A replica that is not ready is not evidence") {
  PodMetrics loading = pod(0, 0, 0);
  loading.ready = false;
  const auto r = served(variant({pod(3, 250, 39), loading}));
  REQUIRE(r);
  CHECK(*r == Approx(3));
}

TEST_CASE("No floor when a replica's own requests show more of them over the ITL target than the SLO lets miss") {
  PodMetrics tail = pod(3, 250, 39);
  tail.request_itl = {{50, 75, 100, 150}, {150, 180, 190, 200}, 200, 200 * 39.0};  // 5% over 100 ms
  CHECK_FALSE(served_within_slo_rps(variant({tail}), kSlo, 60, 120, 0.01));
  CHECK(served_within_slo_rps(variant({tail}), kSlo, 60, 120, 0.06));
  // Without a bound at the target, the largest bound under it counts: 10% over 75 ms.
  tail.request_itl = {{50, 75, 150}, {150, 180, 200}, 200, 200 * 39.0};
  CHECK_FALSE(served_within_slo_rps(variant({tail}), {2000, 90}, 60, 120, 0.05));
  // No bound at or under the target: the mean rule alone decides.
  PodMetrics fast = pod(3, 250, 20);
  fast.request_itl = tail.request_itl;
  CHECK(served_within_slo_rps(variant({fast}), {2000, 45}, 60, 120, 0.01) == Approx(3));
}

TEST_CASE("At a latency share of 1, replicas with their means anywhere within the targets count as served") {
  const VariantState near = variant({pod(3, 300, 0.9 * kSlo.itl_ms)});
  CHECK_FALSE(served(near));
  const auto at_slo = served_within_slo_rps(near, kSlo, 60, 120, 1, 1.0);
  REQUIRE(at_slo);
  CHECK(*at_slo == Approx(3));
  CHECK_FALSE(served_within_slo_rps(variant({pod(3, 300, 1.1 * kSlo.itl_ms)}), kSlo, 60, 120, 1, 1.0));
}

namespace {

// A pod in a filled batch: running as Little's law gives for its rate and latencies.
PodMetrics steady(double rps, double ttft_ms, double itl_ms, double queue = 0) {
  PodMetrics p = pod(rps, ttft_ms, itl_ms, queue);
  p.avg_output_tokens = 120;
  p.running = rps * (ttft_ms + 120 * itl_ms) / 1000;
  return p;
}

std::optional<double> shown(const VariantState& v, double p = 0.01) {
  return demonstrated_rps(v, kSlo, 60, 120, p, served_within_slo_rps(v, kSlo, 60, 120, p).has_value());
}

}  // namespace

TEST_CASE("Replicas in a filled batch within both targets demonstrate their arrival rate") {
  const auto r = shown(variant({steady(7, 120, 55), steady(8, 130, 58)}));
  REQUIRE(r);
  CHECK(*r == Approx(7.5));
}

TEST_CASE("A window whose batch has not filled yet demonstrates nothing") {
  // The rate rose within the window: fewer requests run than the rate keeps in service
  // once every request has its whole time in the batch, and the latency has yet to rise.
  PodMetrics rising = steady(8, 120, 55);
  rising.running *= 0.5;
  CHECK_FALSE(shown(variant({rising})));
  CHECK_FALSE(shown(variant({steady(7, 120, 55), rising})));
  PodMetrics unreported = steady(8, 120, 55);
  unreported.running = NAN;
  CHECK_FALSE(shown(variant({unreported})));
}

TEST_CASE("Demonstrated: the requests' own ITLs, with a margin, judge the ITL where every pod reports them, else its mean at 0.6") {
  // Mean ITL 75 ms, over 0.6 of the target, but every request within 0.8 of it.
  PodMetrics near = steady(9, 150, 75);
  CHECK_FALSE(shown(variant({near})));
  near.request_itl = {{50, 80, 100, 150}, {0, 200, 200, 200}, 200, 200 * 75.0};
  const auto r = shown(variant({near}));
  REQUIRE(r);
  CHECK(*r == Approx(9));
  // 5% of the requests over 80 ms: within a 0.06 tail probability, not within 0.01.
  near.request_itl = {{50, 80, 100, 150}, {0, 190, 200, 200}, 200, 200 * 75.0};
  CHECK_FALSE(shown(variant({near})));
  CHECK(shown(variant({near}), 0.06));
  // Every request within the target itself is not enough: the SLO's attainment would
  // then rest on the window's noise.
  near.request_itl = {{50, 75, 100, 150}, {0, 100, 200, 200}, 200, 200 * 75.0};
  CHECK_FALSE(shown(variant({near}), 0.2));
  // A pod without the histogram beside one with it: the mean rule for all.
  near.request_itl = {{50, 80, 100, 150}, {0, 200, 200, 200}, 200, 200 * 75.0};
  CHECK_FALSE(shown(variant({near, steady(9, 150, 50)})));
  // A mean over 0.8 of the target fails even when the counted bound says otherwise.
  PodMetrics over = steady(9, 150, 85);
  over.request_itl = {{50, 80, 100, 150}, {0, 200, 200, 200}, 200, 200 * 85.0};
  CHECK_FALSE(shown(variant({over})));
}

TEST_CASE("Demonstrated: a queue, a TTFT over 0.6 of its target, no traffic or a stale sample demonstrate nothing") {
  CHECK_FALSE(shown(variant({steady(7, 120, 55, 3)})));
  CHECK_FALSE(shown(variant({steady(7, 1300, 55)})));
  CHECK_FALSE(shown(variant({steady(0, 0, 0)})));
  CHECK_FALSE(shown(variant({})));
  PodMetrics stale = steady(7, 120, 55);
  stale.sample_age_s = 300;
  CHECK_FALSE(shown(variant({stale})));
}

TEST_CASE("A ready replica the router has not sent anything yet neither counts nor spoils the others' figure") {
  const PodMetrics idle = pod(0, 0, 0);  // just ready: no arrivals, nothing running
  const auto r = served(variant({pod(3, 250, 39), pod(4, 300, 45), idle}));
  REQUIRE(r);
  CHECK(*r == Approx(3.5));
  const auto shown_with_idle = shown(variant({steady(7, 120, 55), steady(8, 130, 58), idle}));
  REQUIRE(shown_with_idle);
  CHECK(*shown_with_idle == Approx(7.5));
  // Nor does it, reporting no ITL histogram, stop the others' histograms from judging.
  PodMetrics near = steady(9, 150, 75);
  near.request_itl = {{50, 80, 100, 150}, {0, 200, 200, 200}, 200, 200 * 75.0};
  const auto judged_by_histograms = shown(variant({near, idle}));
  REQUIRE(judged_by_histograms);
  CHECK(*judged_by_histograms == Approx(9));
  // One still running requests it was sent before the window is not idle: it counts as a
  // replica serving nothing this window, and spoils the figure only with a queue.
  PodMetrics draining = idle;
  draining.running = 3;
  const auto with_draining = served(variant({pod(3, 250, 39), draining}));
  REQUIRE(with_draining);
  CHECK(*with_draining == Approx(1.5));
  draining.queue_length = 2;
  CHECK_FALSE(served(variant({pod(3, 250, 39), draining})));
  CHECK_FALSE(served(variant({idle})));
}

TEST_CASE("Replicas whose pooled means miss a target with nothing waiting refute any capacity above their rate") {
  // One pod at 0.2 req/s with a 135 ms mean ITL against 100 (the code trace's A100).
  const auto one = refuted_rps(variant({steady(0.2, 900, 135)}), kSlo, 60, 120);
  REQUIRE(one);
  CHECK(*one == Approx(0.2));
  // Pooled by arrivals: 95 ms at 3 req/s and 110 at 1 make 98.75, within the target.
  CHECK_FALSE(refuted_rps(variant({steady(3, 500, 95), steady(1, 500, 110)}), kSlo, 60, 120));
  // 95 at 1 and 110 at 3 make 106.25: missed at 2 req/s per replica.
  const auto pooled = refuted_rps(variant({steady(1, 500, 95), steady(3, 500, 110)}), kSlo, 60, 120);
  REQUIRE(pooled);
  CHECK(*pooled == Approx(2));
  // Not the mean TTFT: in the window a backlog drains, it is the queue's.
  CHECK_FALSE(refuted_rps(variant({steady(1, 60000, 50)}), kSlo, 60, 120));
}

TEST_CASE("Refuted: a queue, a batch beyond the window's rate, stale samples or no traffic refute nothing") {
  CHECK_FALSE(refuted_rps(variant({steady(1, 500, 150, 5)}), kSlo, 60, 120));  // the backlog's, not the rate's
  // A burst late in the window: the batch holds twice what the window's rate explains.
  PodMetrics burst = steady(1, 500, 150);
  burst.running *= 2;
  CHECK_FALSE(refuted_rps(variant({burst}), kSlo, 60, 120));
  PodMetrics stale = steady(1, 500, 150);
  stale.sample_age_s = 600;
  CHECK_FALSE(refuted_rps(variant({stale}), kSlo, 60, 120));
  CHECK_FALSE(refuted_rps(variant({steady(0, 0, 0)}), kSlo, 60, 120));
  // A replica still warming up is not evidence.
  PodMetrics young = steady(1, 500, 150);
  young.seconds_since_start = 30;
  CHECK_FALSE(refuted_rps(variant({young}), kSlo, 60, 120));
}

TEST_CASE("Pooled by arrivals, pods serve their mean rate at their arrival-weighted means; a queue, nothing") {
  // 95 ms at 3 req/s and 110 at 1 pool to 98.75 ms.
  const auto pooled = pooled_latency(variant({pod(3, 500, 95), pod(1, 500, 110)}), 60, 120);
  REQUIRE(pooled);
  CHECK(pooled->rps == Approx(2));
  CHECK(pooled->itl_ms == Approx(98.75));
  CHECK(pooled->ttft_ms == Approx(500));
  const auto other_way = pooled_latency(variant({pod(1, 500, 95), pod(3, 500, 110)}), 60, 120);
  REQUIRE(other_way);
  CHECK(other_way->itl_ms == Approx(106.25));
  CHECK_FALSE(pooled_latency(variant({pod(3, 500, 50), pod(1, 500, 50, 5)}), 60, 120));
  // A ready replica the router has sent nothing yet is left out.
  const auto with_idle = pooled_latency(variant({pod(3, 500, 50), pod(0, 0, 0)}), 60, 120);
  REQUIRE(with_idle);
  CHECK(with_idle->rps == Approx(3));
}
