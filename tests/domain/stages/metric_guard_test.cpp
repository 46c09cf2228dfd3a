// domain/metric_guard.*: a variant's metrics are unusable when missing, invalid or --
// given a maximum sample age -- stale; the hold never goes below the current count.
#include "domain/stages/metric_guard.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace capstan;

namespace {

PodMetrics pod(const std::string& name, double age_s = 0) {
  PodMetrics p;
  p.pod = name;
  p.arrival_rate_rps = 2;
  p.avg_ttft_ms = 300;
  p.avg_itl_ms = 40;
  p.avg_input_tokens = 512;
  p.avg_output_tokens = 128;
  p.kv_usage = 0.3;
  p.sample_age_s = age_s;
  return p;
}

VariantState variant(std::vector<PodMetrics> pods, int current = 2, int pending = 0) {
  VariantState v;
  v.spec.name = "v";
  v.current_replicas = current;
  v.pending_replicas = pending;
  v.pods = std::move(pods);
  return v;
}

}  // namespace

TEST_CASE("Fresh metrics of every ready replica are usable, with or without an age limit") {
  const auto v = variant({pod("a"), pod("b", 30)});
  CHECK_FALSE(unusable_metrics(v).has_value());
  CHECK_FALSE(unusable_metrics(v, max_sample_age_s(30)).has_value());
}

TEST_CASE("Ready replicas with no pod reporting are unusable") {
  const auto why = unusable_metrics(variant({}, 3));
  REQUIRE(why.has_value());
  CHECK(why->text() == "3 ready replica(s) but no pod reported metrics");
  CHECK_FALSE(unusable_metrics(variant({}, 2, 2)).has_value());  // all still starting
}

TEST_CASE("A NaN, infinite or negative value makes the variant unusable, the sample age included") {
  auto p = pod("a");
  p.kv_usage = std::numeric_limits<double>::quiet_NaN();
  CHECK(unusable_metrics(variant({p}))->text() == "pod a reported an invalid value");
  p = pod("a");
  p.queue_length = -1;
  CHECK(unusable_metrics(variant({p})).has_value());
  p = pod("a", std::numeric_limits<double>::infinity());
  CHECK(unusable_metrics(variant({p}), 60)->text() == "pod a reported an invalid value");
}

TEST_CASE("Metrics older than twice the tick interval are stale and say how old") {
  CHECK(max_sample_age_s(30) == 60);
  const auto v = variant({pod("a", 120), pod("b", 150)});
  CHECK(unusable_metrics(v, max_sample_age_s(30))->text() == "metrics stale: newest sample 120 s old (limit 60 s)");
  // The limit is the caller's: a 5-minute tick reads a 2-minute-old sample as fresh.
  CHECK_FALSE(unusable_metrics(v, max_sample_age_s(300)).has_value());
  CHECK_FALSE(unusable_metrics(variant({pod("a", 60)}), 60).has_value());  // at the limit: still usable
}

TEST_CASE("One fresh pod keeps a variant usable, without a limit age is not judged") {
  CHECK_FALSE(unusable_metrics(variant({pod("a", 600), pod("b", 0)}), 60).has_value());
  CHECK_FALSE(unusable_metrics(variant({pod("a", 600)})).has_value());
  CHECK_FALSE(unusable_metrics(variant({pod("a", 600)}), 0).has_value());
}

TEST_CASE("Pods that are not ready are ignored, stale or not") {
  auto starting = pod("new", 900);
  starting.ready = false;
  CHECK_FALSE(unusable_metrics(variant({pod("a"), starting}), 60).has_value());
}

TEST_CASE("The hold keeps the last good target, never below the current count, and says why") {
  const auto v = variant({pod("a", 120)}, 3);
  const auto why = unusable_metrics(v, 60);
  REQUIRE(why.has_value());
  const ScalingRequest up = hold_last_good(v, 5, *why);
  CHECK(up.target_replicas == 5);
  CHECK(up.reason.code == ReasonCode::kMetricsMissing);
  CHECK(up.reason.text() == "hold at 5: metrics stale: newest sample 120 s old (limit 60 s); keeping the last good target");
  CHECK(hold_last_good(v, 1, *why).target_replicas == 3);
  CHECK(hold_last_good(v, std::nullopt, *why).target_replicas == 3);
}
