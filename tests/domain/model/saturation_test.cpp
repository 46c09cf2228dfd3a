#include "domain/model/saturation.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

PodMetrics pod(double kv_usage, double queue_length) {
  PodMetrics p;
  p.pod = "pod";
  p.kv_usage = kv_usage;
  p.queue_length = queue_length;
  return p;
}

VariantState variant(std::string name, double cost, std::vector<PodMetrics> pods,
                     int pending = 0) {
  VariantState v;
  v.spec.name = std::move(name);
  v.spec.cost_per_replica = cost;
  v.spec.min_replicas = 1;
  v.spec.max_replicas = 10;
  v.current_replicas = static_cast<int>(pods.size()) + pending;
  v.pending_replicas = pending;
  v.pods = std::move(pods);
  return v;
}

SaturationAnalysis analyze(const std::vector<VariantState>& vs) {
  auto a = analyze_saturation(vs, SaturationConfig{});
  REQUIRE(a.ok());
  REQUIRE(a->requests.size() == vs.size());
  return a.value();
}

}  // namespace

TEST_CASE("Defaults are the seed's thresholds: KV 0.80, queue 5, spare triggers 0.10 and 3") {
  const SaturationConfig c;
  CHECK(c.thresholds.kv_cache_threshold == 0.80);
  CHECK(c.thresholds.queue_length_threshold == 5);
  CHECK(c.kv_spare_trigger == 0.10);
  CHECK(c.queue_spare_trigger == 3);
}

TEST_CASE("KV usage above the threshold on every replica scales the cheapest variant up by one") {
  const std::vector<VariantState> vs{variant("h100", 15, {pod(0.86, 0)}),
                                     variant("a10g", 5, {pod(0.86, 0), pod(0.90, 1)})};
  const auto a = analyze(vs);
  CHECK(a.saturated_replicas == 3);
  CHECK(a.scale_up_needed);
  CHECK(a.requests[0].target_replicas == 1);
  CHECK(a.requests[1].target_replicas == 3);
  CHECK(a.requests[1].reason.code == ReasonCode::kScaleUp);
  CHECK_THAT(a.requests[1].reason.text(), Catch::StartsWith("scale up 2 -> 3: spare KV 0"));
  CHECK_THAT(a.requests[1].reason.text(), Catch::Contains("3 of 3 replicas saturated"));
}

TEST_CASE("Low spare queue alone triggers a scale-up") {
  // queue 3 and 2.5 of threshold 5: spare 2 and 2.5, average 2.25 < 3.
  const auto a = analyze({variant("a10g", 5, {pod(0.2, 3), pod(0.2, 2.5)})});
  CHECK(a.avg_spare_queue == Approx(2.25));
  CHECK(a.requests[0].target_replicas == 3);
  CHECK_THAT(a.requests[0].reason.text(), Catch::Contains("spare queue 2.25 below trigger 3"));
}

TEST_CASE("Scale-up skips a variant with pending replicas and takes the next cheapest") {
  const std::vector<VariantState> vs{variant("a10g", 5, {pod(0.9, 6)}, /*pending=*/1),
                                     variant("h100", 15, {pod(0.9, 6)})};
  const auto a = analyze(vs);
  CHECK(a.requests[0].target_replicas == 2);  // unchanged: 1 ready + 1 pending
  CHECK(a.requests[1].target_replicas == 2);
  CHECK(a.requests[1].reason.code == ReasonCode::kScaleUp);
}

TEST_CASE("Scale-up with every variant pending holds with the pending guard") {
  const auto a = analyze({variant("a10g", 5, {pod(0.9, 6)}, 1)});
  CHECK(a.requests[0].target_replicas == 2);
  CHECK(a.requests[0].reason.code == ReasonCode::kPendingGuard);
}

TEST_CASE("Scale-down is blocked with only one non-saturated replica") {
  // One idle replica and one saturated one: plenty of spare on average, but nowhere to
  // move the idle replica's load.
  const auto a = analyze({variant("h100", 15, {pod(0.1, 0), pod(0.85, 0)})});
  CHECK(a.non_saturated_replicas() == 1);
  CHECK_FALSE(a.scale_up_needed);
  CHECK_FALSE(a.scale_down_safe);
  CHECK(a.requests[0].target_replicas == 2);
  CHECK(a.requests[0].reason.code == ReasonCode::kHold);
  CHECK_THAT(a.requests[0].reason.text(), Catch::Contains("needs 2 non-saturated replicas, have 1"));
}

TEST_CASE("Scale-down removes one replica from the most expensive variant when N/(N-1) keeps headroom") {
  // Load 0.2 KV and 1 queued on 4 replicas -> x4/3 = 0.267 and 1.33: spares 0.53 and 3.67.
  const std::vector<VariantState> vs{
      variant("a10g", 5, {pod(0.2, 1), pod(0.2, 1)}),
      variant("h100", 15, {pod(0.2, 1), pod(0.2, 1)})};
  const auto a = analyze(vs);
  CHECK(a.scale_down_safe);
  CHECK(a.requests[0].target_replicas == 2);
  CHECK(a.requests[1].target_replicas == 1);
  CHECK(a.requests[1].reason.code == ReasonCode::kScaleDown);
  CHECK_THAT(a.requests[1].reason.text(), Catch::StartsWith("scale down 2 -> 1"));
}

TEST_CASE("Scale-down is unsafe when redistribution would eat the queue headroom") {
  // Queue 1.8 on 2 replicas: spare 3.2 >= 3, but x2 = 3.6 leaves 1.4 < 3.
  const auto a = analyze({variant("h100", 15, {pod(0.1, 1.8), pod(0.1, 1.8)})});
  CHECK_FALSE(a.scale_up_needed);
  CHECK_FALSE(a.scale_down_safe);
  CHECK(a.requests[0].target_replicas == 2);
  CHECK_THAT(a.requests[0].reason.text(), Catch::Contains("too little spare"));
}

TEST_CASE("Scale-down never takes a variant below one replica or its minimum") {
  std::vector<VariantState> vs{variant("a10g", 5, {pod(0.1, 0), pod(0.1, 0)}),
                               variant("h100", 15, {pod(0.1, 0)})};
  auto a = analyze(vs);
  CHECK(a.requests[1].target_replicas == 1);  // most expensive, but already at 1
  CHECK(a.requests[0].target_replicas == 1);
  vs[0].spec.min_replicas = 2;
  a = analyze(vs);
  CHECK(a.requests[0].target_replicas == 2);
  CHECK(a.requests[1].target_replicas == 1);
  CHECK_THAT(a.requests[0].reason.text(), Catch::Contains("no variant above its floor"));
}

TEST_CASE("No scaling while any variant is transitioning") {
  std::vector<VariantState> vs{variant("a10g", 5, {pod(0.95, 8), pod(0.95, 8)}),
                               variant("h100", 15, {pod(0.95, 8)})};
  vs[1].desired_replicas = 2;  // asked for 2, still has 1
  const auto a = analyze(vs);
  CHECK(a.scale_up_needed);
  CHECK(a.requests[0].target_replicas == 2);
  CHECK(a.requests[1].target_replicas == 2);  // the in-flight target stands
  for (const auto& r : a.requests) {
    CHECK(r.reason.code == ReasonCode::kTransitioning);
    CHECK_THAT(r.reason.text(), Catch::Contains("h100 is transitioning (desired 2, current 1)"));
  }
}

TEST_CASE("A desired count equal to the current one is not a transition") {
  std::vector<VariantState> vs{variant("a10g", 5, {pod(0.95, 8)})};
  vs[0].desired_replicas = 1;
  CHECK(analyze(vs).requests[0].target_replicas == 2);
}

TEST_CASE("No ready pod reporting holds every variant with metrics_missing") {
  std::vector<VariantState> vs{variant("a10g", 5, {pod(0.95, 8)})};
  vs[0].pods[0].ready = false;
  const auto a = analyze(vs);
  CHECK(a.requests[0].target_replicas == 1);
  CHECK(a.requests[0].reason.code == ReasonCode::kMetricsMissing);
}

TEST_CASE("Equal costs break ties by variant name") {
  const auto a = analyze({variant("b", 5, {pod(0.9, 0)}), variant("a", 5, {pod(0.9, 0)})});
  CHECK(a.requests[0].target_replicas == 1);
  CHECK(a.requests[1].target_replicas == 2);
}

TEST_CASE("Invalid saturation settings are rejected with the field name") {
  SaturationConfig c;
  c.thresholds.kv_cache_threshold = 1.2;
  auto r = analyze_saturation({}, c);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("kv_cache_threshold") && Catch::Contains("1.2"));
  c = SaturationConfig{};
  c.kv_spare_trigger = 0.9;
  r = analyze_saturation({}, c);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("kv_spare_trigger"));
  c = SaturationConfig{};
  c.queue_spare_trigger = -1;
  r = analyze_saturation({}, c);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("queue_spare_trigger"));
}
