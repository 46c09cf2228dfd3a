// Tests of the small stability rules every policy shares: learned cold start, hold on
// missing metrics, step limit, observed queueing. The P:D band is in pd_ratio_test.cpp,
// the stages that apply them all in tick_finisher_test.cpp.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/model/cold_start_estimator.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/model/observed_queueing.hpp"
#include "domain/stages/step_limit.hpp"

using namespace capstan;

TEST_CASE("Cold start uses the configured prior until enough starts were seen") {
  const ColdStartConfig c;
  ColdStartState s{600, {}};
  CHECK(cold_start_estimate_s(s, c) == 600);
  s = observe_cold_start(s, 200, c);
  CHECK(cold_start_estimate_s(s, c) == 600);  // P90 of {200, 600}
  s = observe_cold_start(s, 210, c);
  s = observe_cold_start(s, 190, c);
  CHECK(cold_start_estimate_s(s, c) == 210);  // P90 of its own three starts
}

TEST_CASE("Learned cold start is robust to one slow start and forgets old ones") {
  ColdStartConfig c;
  c.window = 10;
  ColdStartState s{300, {}};
  for (int i = 0; i < 9; ++i) s = observe_cold_start(s, 120, c);
  s = observe_cold_start(s, 2000, c);
  CHECK(cold_start_estimate_s(s, c) == 120);  // 1 of 10 is above P90
  for (int i = 0; i < 10; ++i) s = observe_cold_start(s, 400, c);
  CHECK(s.samples_s.size() == 10);
  CHECK(cold_start_estimate_s(s, c) == 400);
  s = observe_cold_start(s, std::nan(""), c);
  CHECK(s.samples_s.size() == 10);
  const nlohmann::json j = s;
  CHECK(j.get<ColdStartState>() == s);
}

TEST_CASE("Ready replicas without any report make the variant's metrics unusable") {
  VariantState v;
  v.spec.name = "a";
  v.current_replicas = 3;
  CHECK(unusable_metrics(v).has_value());
  v.pods.push_back(PodMetrics{});
  CHECK_FALSE(unusable_metrics(v).has_value());
  v.pods[0].kv_usage = std::nan("");
  CHECK(unusable_metrics(v).has_value());
}

TEST_CASE("Holding on missing metrics never goes below the last good target") {
  VariantState v;
  v.spec.name = "a";
  v.current_replicas = 2;
  const Reason why = make_reason(ReasonCode::kMetricsMissing, "guard.none_reported", {{"ready", 2}});
  const ScalingRequest r = hold_last_good(v, 4, why);
  CHECK(r.target_replicas == 4);
  CHECK(r.reason.code == ReasonCode::kMetricsMissing);
  CHECK(r.reason.text() == "hold at 4: 2 ready replica(s) but no pod reported metrics; keeping the last good target");
  CHECK(r.reason.causes() == std::vector<Reason>{why});
  CHECK(hold_last_good(v, 1, why).target_replicas == 2);
  CHECK(hold_last_good(v, std::nullopt, why).target_replicas == 2);
}

TEST_CASE("A tick's change is limited to the configured step") {
  CHECK(limit_step(2, 10, 3, 1) == 5);
  CHECK(limit_step(10, 2, 3, 1) == 9);
  CHECK(limit_step(2, 10, 0, 0) == 10);
  CHECK(limit_step(4, 4, 1, 1) == 4);
}

TEST_CASE("Observed queueing turns waiting requests into expected wait") {
  CHECK(observed_wait_ms(0, 0, 10) == 0);
  CHECK(observed_wait_ms(20, 30, 10) == Approx(5000));
  CHECK(std::isinf(observed_wait_ms(5, 0, 0)));
}
