// Per-variant cost of one tick of every registered policy (issues 4 and 19 target: at
// most 50 us per variant), on two sets of inputs:
// - synthetic: a model with two variants of three pods each whose metrics follow the
//   queue model; each policy first runs 40 warm-up ticks so its learners are in steady
//   state, then the timed ticks continue the same series;
// - realistic pods: the inputs the simulator recorded while the example fleet served a
//   trace (recorded_fleet.hpp; 1-8 pods per variant with per-request ITL histograms).
//   Every policy replays the whole run several times from a fresh state; the ticks
//   after the first 20 (when hybrid's ITL evidence holds its full 20 windows) are timed
//   one by one, and the median and 90th percentile per variant are printed.
// Run: build/bench/policy_bench [TRACE]  (default: ops/examples/azure_code_15min.csv)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "domain/model/ekf_tuner.hpp"
#include "domain/policies/policy.hpp"
#include "recorded_fleet.hpp"
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

// Per-variant microseconds of each tick after `warm_up`, over `runs` replays of `inputs`
// from a fresh state.
std::vector<double> replayed_us_per_variant(const PolicyInfo& info, const PolicyConfig& config,
                                            const std::vector<TickInput>& inputs, std::size_t warm_up, int runs) {
  std::vector<double> out;
  for (int run = 0; run < runs; ++run) {
    DrivenPolicy policy(info.make(), config);
    for (std::size_t t = 0; t < inputs.size(); ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      bench::keep(policy.tick(inputs[t]));
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      const std::size_t variants = bench::variant_count(inputs[t]);
      if (t >= warm_up && variants > 0) out.push_back(us / static_cast<double>(variants));
    }
  }
  return out;
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return std::nan("");
  const auto k = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

void realistic_pods(const std::string& trace) {
  const std::vector<TickInput> inputs = bench::simulated_ticks(trace);
  if (inputs.empty()) return;
  std::size_t pods = 0, variants = 0;
  for (const TickInput& in : inputs)
    for (const ModelTickInput& m : in.models)
      for (const VariantTickInput& v : m.variants) {
        pods += v.state.pods.size();
        ++variants;
      }
  std::printf("\nrealistic pods: %zu recorded ticks, %.1f pods per variant on average; ticks after the 20th timed\n",
              inputs.size(), static_cast<double>(pods) / static_cast<double>(variants));
  PolicyConfig config;
  config.slo = {2000, 100};
  std::printf("%-18s %12s %12s   (us per variant; target <= 50)\n", "policy", "median", "p90");
  for (const PolicyInfo& info : registered_policies()) {
    const std::vector<double> us = replayed_us_per_variant(info, config, inputs, 20, 5);
    std::printf("%-18s %12.1f %12.1f\n", info.name.c_str(), percentile(us, 0.5), percentile(us, 0.9));
  }
}

}  // namespace

int main(int argc, char** argv) {
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
  realistic_pods(argc > 1 ? argv[1] : "");
  return 0;
}
