// How the measured ITL spread (domain/model/itl_tail.hpp) sizes one replica when it is
// fitted at light load, with the replica's true iteration costs (no EKF error): one warm
// simulated H100 (ops/examples/fleet.yaml) under a steady Poisson load per run, its
// per-request ITL histograms of 25 minutes fitted as `hybrid` fits them, then the mean ITL
// the fit sizes to at p = 0.01 and the capacity that gives, against the simulator's own
// rate at 99 % within 2 s TTFT and 100 ms ITL. A figure well below the truth at light load
// is pessimism of the spread itself, not of the learned parameters.
//
// Run from the repository root: build/bench/itl_spread_bench [input_tokens] [output_tokens] [fleet.yaml]
// (defaults 512 128 ops/examples/fleet.yaml, whose second variant is the H100).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "domain/model/itl_tail.hpp"
#include "domain/model/queue_model.hpp"
#include "sim/fleet_config.hpp"
#include "sim/itl_spread_probe.hpp"
#include "sim/sustainable_rate.hpp"
#include "sim/synthetic_trace.hpp"

using namespace capstan;
using namespace capstan::sim;

int main(int argc, char** argv) {
  const double in = argc > 1 ? std::atof(argv[1]) : 512, out = argc > 2 ? std::atof(argv[2]) : 128;
  auto fleet = load_fleet_config(argc > 3 ? argv[3] : "ops/examples/fleet.yaml");
  if (!fleet) {
    std::fprintf(stderr, "%s\n", fleet.error().message.c_str());
    return 1;
  }
  FleetConfig one = *fleet;
  VariantConfig h100 = one.variants.at(1);
  h100.initial_replicas = h100.min_replicas = h100.max_replicas = 1;
  one.variants = {h100};
  const auto lengths = lognormal_lengths(in, 0.8, out, 0.8);
  const SloTargets slo{2000, 100};
  const double p = 0.01;
  const HardwareProfile& hw = h100.profile;
  auto qa = QueueAnalyzer::create({hw.overhead_ms, hw.compute_ms_per_token, hw.kv_read_ms_per_token},
                                  {h100.server.max_num_seqs, 10 * h100.server.max_num_seqs}, {in, out});
  if (!qa) {
    std::fprintf(stderr, "%s\n", qa.error().message.c_str());
    return 1;
  }
  const double d1 = qa->decode_time_ms(1);
  SustainableRateOptions options;
  options.attainment_target = 1 - p;
  options.probe_requests = 20000;
  const double truth = sustainable_rate(one, 0, lengths, slo, options).rate_rps;
  std::printf("one simulated H100, %.0f/%.0f tokens, d1 %.1f ms; serves 99%% within the SLO up to %.2f req/s\n", in, out,
              d1, truth);
  std::printf("%8s %12s %9s %7s %14s %12s %9s\n", "req/s", "load part ms", "location", "scale", "sized ITL ms",
              "capacity", "/ truth");
  for (const double share : {0.15, 0.25, 0.4, 0.55, 0.75, 0.9}) {
    const double rate = share * truth;
    const ItlSpreadProbe probe = probe_itl_spread(one, rate, lengths, slo, *qa);
    const auto spread = fit_itl_spread(probe.windows);
    if (!spread) {
      std::printf("%8.2f %12s %9s %7s %14s %12s %9s\n", rate, "-", "no fit", "-", "-", "-", "-");
      continue;
    }
    const double sized_ms = itl_sizing_target_ms(*spread, slo.itl_ms, d1, p);
    const auto sized = qa->size(SloTargets{slo.ttft_ms, sized_ms});
    const double capacity = sized ? sized->at_lambda_star.throughput_rps : 0;
    std::printf("%8.2f %12.1f %9.3f %7.3f %14.1f %12.2f %9.2f\n", rate, probe.mean_load_part_ms, spread->location, spread->scale,
                sized_ms, capacity, capacity / truth);
  }
  return 0;
}
