#include "domain/model/queueing_analyzer.hpp"

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/codec/json.hpp"
#include "domain/model/queue_model.hpp"

using namespace capstan;

namespace {

const ServiceParams kTruth{6.0, 0.016, 0.0004};
const ModelKey kModel{"prod", "llama"};

// A pod whose latencies are what the queue model predicts at its rate.
PodMetrics pod_at(double rate, double in = 1000, double out = 200, double age_s = 600) {
  TunerObservation o{1, 1, in, out, rate, 256};
  auto h = predict_observation(kTruth, o, 10);
  REQUIRE(h.ok());
  PodMetrics p;
  p.pod = "p";
  p.arrival_rate_rps = rate;
  p.avg_ttft_ms = (*h)[0];
  p.avg_itl_ms = (*h)[1];
  p.avg_input_tokens = in;
  p.avg_output_tokens = out;
  p.seconds_since_start = age_s;
  return p;
}

VariantInput variant(const std::string& name, std::vector<PodMetrics> pods, int current, int pending = 0) {
  VariantInput v;
  v.spec.name = name;
  v.pods = std::move(pods);
  v.current_replicas = current;
  v.pending_replicas = pending;
  return v;
}

QueueingAnalyzerConfig explicit_slo() {
  QueueingAnalyzerConfig c;
  c.slo = {3.0, {1500, 40}};
  return c;
}

}  // namespace

TEST_CASE("Required replicas are ceil(total arrival / lambda*)") {
  VariantInput v = variant("a100", {pod_at(3), pod_at(3)}, 2);
  TunerState s = initial_state({1, 1, 1000, 200, 3, 256}, TunerConfig{}).state;
  s.params = kTruth;
  v.tuner = s;
  auto r = analyze_model(kModel, {v}, explicit_slo());
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->error);
  const VariantCapacity& c = r->variants[0].capacity;
  CHECK(c.status == CapacityStatus::kOk);
  auto qa = QueueAnalyzer::create(r->variants[0].tuner->params, {256, 100}, {1000, 200});
  const double per_replica = qa->size({1500, 40})->at_lambda_star.throughput_rps;
  CHECK(c.per_replica_capacity_rps == Approx(per_replica));
  CHECK(c.total_demand_rps == 6);
  CHECK(c.required_replicas == static_cast<int>(std::ceil(6 / per_replica)));
  CHECK(c.total_capacity_rps == Approx(2 * per_replica));
  CHECK(c.utilization == Approx(3 / per_replica));
}

TEST_CASE("Failing variants stay in the result with zero capacity and true replica counts") {
  TunerState learned = initial_state({1, 1, 1000, 200, 3, 256}, TunerConfig{}).state;
  learned.params = kTruth;
  VariantInput ok = variant("ok", {pod_at(3)}, 1);
  ok.tuner = learned;
  VariantInput no_metrics = variant("no-metrics", {}, 3, 1);
  VariantInput idle = variant("idle", {pod_at(3)}, 2);
  idle.pods[0].arrival_rate_rps = 0;
  auto r = analyze_model(kModel, {ok, no_metrics, idle}, explicit_slo());
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->error);
  REQUIRE(r->variants.size() == 3);
  const VariantCapacity& nm = r->variants[1].capacity;
  CHECK(nm.status == CapacityStatus::kNoMetrics);
  CHECK(nm.per_replica_capacity_rps == 0);
  CHECK(nm.total_demand_rps == 0);
  CHECK(nm.current_replicas == 3);
  CHECK(nm.pending_replicas == 1);
  CHECK(nm.ready_replicas == 2);
  CHECK(r->variants[2].capacity.status == CapacityStatus::kNoTraffic);
  CHECK(r->variants[2].capacity.current_replicas == 2);
}

TEST_CASE("The model errors only when every variant fails, and keeps what it learned") {
  auto r = analyze_model(kModel, {variant("a", {}, 1), variant("b", {pod_at(2)}, 1)}, explicit_slo());
  REQUIRE(r.ok());
  // b bootstraps its tuner this cycle and is sized from it; a has no metrics.
  CHECK_FALSE(r->error);
  auto all_fail = analyze_model(kModel, {variant("a", {}, 1), variant("b", {}, 2)}, explicit_slo());
  REQUIRE(all_fail.ok());
  REQUIRE(all_fail->error);
  CHECK(all_fail->variants[1].capacity.current_replicas == 2);
}

TEST_CASE("A variant learns across cycles and its capacity approaches the truth") {
  std::optional<TunerState> stored;
  double capacity = 0;
  for (int cycle = 0; cycle < 12; ++cycle) {
    const double rate = 1.0 + 0.4 * cycle;
    VariantInput v = variant("a100", {pod_at(rate, 900 + 20 * (cycle % 5), 150 + 10 * (cycle % 7))}, 1);
    v.tuner = stored;
    auto r = analyze_model(kModel, {v}, explicit_slo());
    REQUIRE(r.ok());
    stored = r->variants[0].tuner;
    capacity = r->variants[0].capacity.per_replica_capacity_rps;
    if (cycle == 0) CHECK(r->variants[0].tuning.source == "bootstrap");
    else CHECK(r->variants[0].tuning.source == "ekf");
  }
  auto truth = QueueAnalyzer::create(kTruth, {256, 100}, {980, 180})->size({1500, 40});
  CHECK(capacity == Approx(truth->at_lambda_star.throughput_rps).epsilon(0.15));
}

TEST_CASE("The tuner learns from the average pod, not from the variant's total rate") {
  // Two identical pods at 3 req/s each: the bootstrap and update must see 3, not 6.
  auto one = analyze_model(kModel, {variant("v", {pod_at(3)}, 1)}, explicit_slo());
  auto two = analyze_model(kModel, {variant("v", {pod_at(3), pod_at(3)}, 2)}, explicit_slo());
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  CHECK(one->variants[0].tuner->params == two->variants[0].tuner->params);
  CHECK(two->variants[0].capacity.total_demand_rps == 6);
}

TEST_CASE("SLO falls back to observed latency until the tuner has settled") {
  QueueingAnalyzerConfig c;  // no explicit targets
  auto r = analyze_model(kModel, {variant("v", {pod_at(3)}, 1)}, c);
  REQUIRE(r.ok());
  CHECK(r->slo.path == SloPath::kObserved);
  CHECK(r->slo.targets.ttft_ms == Approx(pod_at(3).avg_ttft_ms * 1.5));
}

TEST_CASE("An invalid SLO configuration is an error naming the field") {
  QueueingAnalyzerConfig c;
  c.slo.slo_multiplier = 0.8;
  auto r = analyze_model(kModel, {variant("v", {pod_at(3)}, 1)}, c);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("sloMultiplier"));
}

TEST_CASE("The analysis is deterministic to the byte") {
  auto a = analyze_model(kModel, {variant("v", {pod_at(3), pod_at(4)}, 2)}, explicit_slo());
  auto b = analyze_model(kModel, {variant("v", {pod_at(3), pod_at(4)}, 2)}, explicit_slo());
  CHECK(nlohmann::json(*a).dump() == nlohmann::json(*b).dump());
}
