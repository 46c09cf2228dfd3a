#include "domain/hybrid_policy.hpp"

#include <catch2/catch.hpp>

#include "domain/ekf_tuner.hpp"

using namespace capstan;

namespace {

const ServiceParams kTruth{6.0, 0.016, 0.0004};

PodMetrics pod_at(const std::string& name, double rate, double queue = 0) {
  TunerObservation o{1, 1, 1000, 200, rate, 256};
  auto h = predict_observation(kTruth, o, 10);
  REQUIRE(h.ok());
  PodMetrics p;
  p.pod = name;
  p.arrival_rate_rps = rate;
  p.avg_ttft_ms = (*h)[0];
  p.avg_itl_ms = (*h)[1];
  p.avg_input_tokens = 1000;
  p.avg_output_tokens = 200;
  p.queue_length = queue;
  p.seconds_since_start = 3600;
  return p;
}

struct Fleet {
  int cheap = 2, dear = 0, cheap_pending = 0;
};

TickInput tick_at(double now_s, const Fleet& f, double model_rps, double queue_per_pod = 0,
                  double upstream = 0, std::vector<double> cold_starts = {}) {
  TickInput in;
  in.now_s = now_s;
  in.interval_s = 30;
  ModelTickInput m;
  m.model = {"prod", "llama"};
  const int ready = f.cheap - f.cheap_pending + f.dear;
  for (auto [name, cost, n, pending] :
       {std::tuple{"cheap", 2.0, f.cheap, f.cheap_pending}, std::tuple{"dear", 4.0, f.dear, 0}}) {
    VariantTickInput v;
    v.state.spec.name = name;
    v.state.spec.cost_per_replica = cost;
    v.state.spec.max_replicas = 40;
    v.state.current_replicas = n;
    v.state.pending_replicas = pending;
    v.state.desired_replicas = n;
    v.configured_cold_start_s = 300;
    if (std::string(name) == "cheap") v.new_cold_starts_s = cold_starts;
    for (int i = 0; i < n - pending; ++i) {
      v.state.pods.push_back(pod_at(std::string(name) + std::to_string(i), model_rps / ready, queue_per_pod));
    }
    m.variants.push_back(v);
  }
  m.arrival_rate_rps = model_rps;
  m.upstream_queue = upstream;
  in.models.push_back(m);
  return in;
}

PolicyConfig config() {
  PolicyConfig c;
  c.slo = {1500, 40};
  c.scale_down_cooldown_s = 0;
  return c;
}

int warm_up(HybridPolicy& p, const Fleet& f, double rps, int ticks = 10) {
  int target = f.cheap;
  for (int t = 0; t < ticks; ++t) target = p.tick(tick_at(30.0 * t, f, rps * (1 + 0.02 * (t % 3))))[0].target_replicas;
  return target;
}

}  // namespace

TEST_CASE("hybrid releases a replica the load does not need") {
  HybridPolicy p(config());
  const Fleet f{3, 0, 0};
  warm_up(p, f, 6);  // 2 req/s per replica: two replicas carry it with margin
  CHECK(p.tick(tick_at(330, f, 6))[0].target_replicas == 2);
}

TEST_CASE("hybrid holds a steady load that its replicas carry") {
  HybridPolicy p(config());
  const Fleet f{3, 0, 0};
  warm_up(p, f, 15);  // 5 req/s per replica, capacity ~7.5 at this SLO: 2 would not do
  const auto d = p.tick(tick_at(330, f, 15));
  CHECK(d[0].target_replicas == 3);
  CHECK(d[1].target_replicas == 0);
}

TEST_CASE("hybrid sizes for a backlog it observes, not only for modelled service time") {
  HybridPolicy p(config());
  const Fleet f{2, 0, 0};
  warm_up(p, f, 6);
  const int calm = p.tick(tick_at(330, f, 6))[0].target_replicas;
  const auto burst = p.tick(tick_at(360, f, 6, 40, 400));
  CHECK(burst[0].target_replicas > calm);
  CHECK_THAT(burst[0].reason.text, Catch::Contains("backlog 480"));
  CHECK_THAT(burst[0].reason.text, Catch::Contains("observed queueing"));
}

TEST_CASE("hybrid counts starting replicas as coming capacity") {
  HybridPolicy p(config());
  warm_up(p, Fleet{2, 0, 0}, 12);
  const int wanted = p.tick(tick_at(330, Fleet{2, 0, 0}, 15))[0].target_replicas;
  REQUIRE(wanted > 2);
  // The extra replicas are loading: asking again for the same demand adds nothing.
  const auto again = p.tick(tick_at(360, Fleet{wanted, 0, wanted - 2}, 15));
  CHECK(again[0].target_replicas == wanted);
}

TEST_CASE("hybrid puts new capacity on the more cost-efficient variant") {
  HybridPolicy p(config());
  warm_up(p, Fleet{2, 0, 0}, 10);
  const auto d = p.tick(tick_at(330, Fleet{2, 0, 0}, 17));
  CHECK(d[0].target_replicas > 2);
  CHECK(d[1].target_replicas == 0);  // "dear" has nothing learned and costs more
}

TEST_CASE("hybrid's horizon follows the cold start the fleet measured") {
  HybridPolicy p(config());
  const Fleet f{2, 0, 0};
  for (int t = 0; t < 6; ++t) p.tick(tick_at(30.0 * t, f, 6, 0, 0, t < 4 ? std::vector<double>{900} : std::vector<double>{}));
  const auto d = p.tick(tick_at(180, f, 6));
  CHECK_THAT(d[0].reason.text, Catch::Contains("t+930 s"));
}

TEST_CASE("hybrid state round trip gives identical later decisions") {
  HybridPolicy a(config());
  warm_up(a, Fleet{2, 0, 0}, 8, 6);
  HybridPolicy b(config());
  REQUIRE(b.restore_state(nlohmann::json::parse(a.save_state().dump())).ok());
  for (int t = 6; t < 10; ++t) {
    const auto in = tick_at(30.0 * t, Fleet{2, 0, 0}, 8 + t);
    CHECK(a.tick(in) == b.tick(in));
  }
}
