#include <catch2/catch.hpp>

#include "domain/model/model_learning.hpp"
#include "domain/model/queueing_analyzer.hpp"

using namespace capstan;

namespace {

const ModelKey kModel{"m", "ns"};
const TickTime kTime{600, 30};

// A warm H100-like pod serving 2,000-token prompts at 0.6 req/s.
PodMetrics pod(std::string name, double queue, double rate = 0.6, double ttft_ms = 230, double itl_ms = 45) {
  PodMetrics p;
  p.pod = std::move(name);
  p.arrival_rate_rps = rate;
  p.avg_ttft_ms = ttft_ms;
  p.avg_itl_ms = itl_ms;
  p.avg_input_tokens = 2000;
  p.avg_output_tokens = 300;
  p.queue_length = queue;
  p.running = 10;
  p.seconds_since_start = 600;
  return p;
}

VariantTickInput variant(std::vector<PodMetrics> pods) {
  VariantTickInput v;
  v.state.spec.name = "h100";
  v.state.current_replicas = static_cast<int>(pods.size());
  v.state.pods = std::move(pods);
  v.configured_cold_start_s = 270;
  return v;
}

const ParamsLearned* params_event(const Learned& l) {
  for (const TickEvent& e : l.events) {
    if (const auto* p = std::get_if<ParamsLearned>(&e)) return p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("No first estimate is taken while requests wait: a queued TTFT would be read as prefill time") {
  // The pod the router has stopped sending to still drains its queue: no light load.
  const VariantTickInput queued = variant({pod("a", 0), pod("b", 400, 0)});
  const Learned l = learn_variant({}, kModel, queued, kTime, {});
  CHECK_FALSE(l.next.tuner.has_value());
  CHECK(params_event(l) == nullptr);
  CHECK(l.view.tuning.source == "none");
  CHECK_THAT(l.view.tuning.reason, Catch::Contains("no first estimate while 200 requests wait per pod"));

  // One waiting request per pod is light load.
  const Learned light = learn_variant({}, kModel, variant({pod("a", 1), pod("b", 1)}), kTime, {});
  REQUIRE(light.next.tuner.has_value());
  REQUIRE(params_event(light) != nullptr);
  CHECK(params_event(light)->source == "bootstrap");

  // `queueing` bootstraps as WVA does, whatever waits.
  const Learned wva = learn_variant({}, kModel, queued, kTime, {.bootstrap_without_queue = false});
  REQUIRE(wva.next.tuner.has_value());
  CHECK(wva.view.tuning.source == "bootstrap");
}

TEST_CASE("No first estimate is taken within three windows of a backlog: the requests finishing ran in its batch") {
  const VariantTickInput queued = variant({pod("a", 300), pod("b", 300)});
  const VariantTickInput light = variant({pod("a", 0), pod("b", 0)});
  Learned l = learn_variant({}, kModel, queued, TickTime{600, 30}, {});
  REQUIRE(l.next.waited_at_s == 600);
  for (double now : {630.0, 660.0, 690.0}) {
    l = learn_variant(l.next, kModel, light, TickTime{now, 30}, {});
    INFO(now);
    CHECK_FALSE(l.next.tuner.has_value());
    CHECK_THAT(l.view.tuning.reason, Catch::Contains("no first estimate within 3 windows of a backlog"));
  }
  l = learn_variant(l.next, kModel, light, TickTime{720, 30}, {});
  CHECK(l.next.tuner.has_value());
  CHECK(l.view.tuning.source == "bootstrap");
  CHECK_FALSE(l.next.waited_at_s.has_value());  // forgotten once it no longer matters

  // `queueing` learns as WVA does and keeps nothing of it.
  const Learned wva = learn_variant({}, kModel, queued, TickTime{600, 30}, {.bootstrap_without_queue = false});
  CHECK_FALSE(wva.next.waited_at_s.has_value());
}

TEST_CASE("A filter that rejected ten observations in a row is estimated afresh from one without a queue") {
  const VariantTickInput light = variant({pod("a", 0), pod("b", 0)});
  // A bootstrap taken while a backlog drained: alpha at 0.9 x a 300 ms ITL.
  TunerObservation drained{600, 300, 2000, 300, 4, 256};
  VariantMemory memory;
  memory.tuner = initial_state(drained, TunerConfig{}).state;
  memory.tuner->consecutive_rejections = 9;
  memory.tuner->accepted_updates = 1;

  // Nine in a row: still the filter's own step (its counters go on).
  const Learned nine = learn_variant(memory, kModel, light, kTime, {});
  REQUIRE(nine.next.tuner.has_value());
  CHECK(nine.view.tuning.source == "ekf");
  CHECK(nine.next.tuner->accepted_updates + nine.next.tuner->rejected_updates ==
        memory.tuner->accepted_updates + memory.tuner->rejected_updates + 1);

  memory.tuner->consecutive_rejections = 10;
  const Learned fresh = learn_variant(memory, kModel, light, kTime, {});
  REQUIRE(fresh.next.tuner.has_value());
  CHECK(fresh.view.tuning.source == "bootstrap");
  CHECK_THAT(fresh.view.tuning.reason, Catch::Contains("estimated afresh: the last 10 observations were all rejected"));
  const VariantTuning expected = tune_variant(VariantInput{light.state.spec, light.state.pods, 2, 0, std::nullopt}, {});
  CHECK(fresh.next.tuner == expected.tuner);
  REQUIRE(params_event(fresh) != nullptr);
  CHECK(params_event(fresh)->params == expected.tuner->params);

  // With a queue it is not the time to start again: the filter steps as before.
  const Learned queued = learn_variant(memory, kModel, variant({pod("a", 0), pod("b", 50)}), kTime, {});
  REQUIRE(queued.next.tuner.has_value());
  CHECK(queued.view.tuning.source == "ekf");
  CHECK(queued.next.tuner->min_params == memory.tuner->min_params);

  // `queueing` never starts again.
  const Learned wva = learn_variant(memory, kModel, light, kTime, {.bootstrap_without_queue = false});
  CHECK(wva.view.tuning.source == "ekf");
}

TEST_CASE("The windows after a backlog last until its batch has drained, not only its queue") {
  // Queue empty, but each pod still runs 60 requests where 0.6 req/s for about 14 s in
  // the batch explains 8: the requests finishing ran in the batch the backlog filled.
  PodMetrics big_batch = pod("a", 0);
  big_batch.running = 60;
  const VariantTickInput draining = variant({big_batch, big_batch});
  const VariantTickInput light = variant({pod("a", 0), pod("b", 0)});
  Learned l = learn_variant({}, kModel, variant({pod("a", 300), pod("b", 300)}), TickTime{600, 30}, {});
  for (double now : {630.0, 660.0}) {
    l = learn_variant(l.next, kModel, draining, TickTime{now, 30}, {});
    INFO(now);
    CHECK(l.next.waited_at_s == now);
    CHECK_FALSE(l.next.tuner.has_value());
  }
  for (double now : {690.0, 720.0, 750.0}) {
    l = learn_variant(l.next, kModel, light, TickTime{now, 30}, {});
    INFO(now);
    CHECK_FALSE(l.next.tuner.has_value());
  }
  l = learn_variant(l.next, kModel, light, TickTime{780, 30}, {});
  CHECK(l.next.tuner.has_value());

  // A large batch with no backlog before it is no drain: the first estimate is taken.
  const Learned fresh = learn_variant({}, kModel, draining, TickTime{600, 30}, {});
  CHECK_FALSE(fresh.next.waited_at_s.has_value());
  CHECK(fresh.next.tuner.has_value());
}
