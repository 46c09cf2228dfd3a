// Per-variant cost of one tick of every registered policy (issue 4 target: under 50 us
// per variant). A model with two variants of three pods each whose metrics follow the
// queue model; each policy first runs 40 warm-up ticks so its learners are in steady
// state, then the timed ticks continue the same series. Run: build/bench/policy_bench
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "domain/model/ekf_tuner.hpp"
#include "domain/policies/policy.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

const ServiceParams kTruth{6.0, 0.016, 0.0004};

TickInput tick_at(int t) {
  TickInput in;
  in.now_s = 30.0 * t;
  in.interval_s = 30;
  ModelTickInput m;
  m.model = {"bench", "llama"};
  const double per_pod = 3.0 + std::sin(t / 20.0);
  for (auto [name, cost] : {std::pair{"a100", 2.0}, std::pair{"h100", 4.0}}) {
    VariantTickInput v;
    v.state.spec.name = name;
    v.state.spec.cost_per_replica = cost;
    v.state.spec.max_replicas = 20;
    v.state.current_replicas = 3;
    v.state.desired_replicas = 3;
    v.configured_cold_start_s = 300;
    for (int i = 0; i < 3; ++i) {
      TunerObservation o{1, 1, 1000, 200, per_pod, 256};
      auto h = predict_observation(kTruth, o, 10);
      PodMetrics p;
      p.pod = std::string(name) + "-" + std::to_string(i);
      p.arrival_rate_rps = per_pod;
      p.avg_ttft_ms = (*h)[0];
      p.avg_itl_ms = (*h)[1];
      p.avg_input_tokens = 1000;
      p.avg_output_tokens = 200;
      p.kv_usage = 0.4;
      p.running = 12;
      p.seconds_since_start = 3600;
      v.state.pods.push_back(p);
      ForwardPassSample fp;
      fp.pod = p.pod;
      fp.wall_time_ms = 40;
      fp.scheduled_prefill_tokens = 512;
      fp.decode_kv_tokens = 12000;
      fp.running_requests = 12;
      v.forward_passes.push_back(fp);
    }
    m.variants.push_back(v);
  }
  m.arrival_rate_rps = per_pod * 6;
  in.models.push_back(m);
  return in;
}

}  // namespace

int main() {
  std::vector<TickInput> inputs;
  for (int t = 0; t < 240; ++t) inputs.push_back(tick_at(t));
  PolicyConfig config;
  config.slo = {1500, 40};
  std::printf("%-12s %18s\n", "policy", "us per variant");
  for (const PolicyInfo& info : registered_policies()) {
    DrivenPolicy driven(info.make(), config);
    Policy* policy = &driven;
    for (int t = 0; t < 40; ++t) policy->tick(inputs[static_cast<size_t>(t)]);
    int t = 40;
    const double ns = bench::median_ns_per_call(
        [&](int) {
          bench::keep(policy->tick(inputs[static_cast<size_t>(t)]));
          t = t + 1 < static_cast<int>(inputs.size()) ? t + 1 : 40;
        },
        20);
    std::printf("%-12s %18.1f\n", info.name.c_str(), ns / 1000 / 2);
  }
  return 0;
}
