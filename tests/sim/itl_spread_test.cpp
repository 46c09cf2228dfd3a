// The measured ITL spread (domain/model/itl_tail.hpp) against the simulator it is measured
// on: one warm H100 replica under a steady Poisson load reports its per-request ITL
// histograms; the spread fitted to them, with the replica's own iteration costs, sizes
// it close to the rate at which the simulator serves 99% of requests within the SLO.
#include <catch2/catch.hpp>

#include "domain/model/itl_tail.hpp"
#include "domain/model/queue_model.hpp"
#include "sim/fleet_config.hpp"
#include "sim/itl_spread_probe.hpp"
#include "sim/sustainable_rate.hpp"

namespace capstan::sim {

TEST_CASE("the ITL spread measured on a simulated replica sizes it near the rate it serves at 99 percent") {
  auto fleet = load_fleet_config(std::string(CAPSTAN_TEST_DATA_DIR) + "/../../ops/examples/fleet.yaml");
  REQUIRE(fleet.ok());
  FleetConfig one = *fleet;
  VariantConfig h100 = one.variants.at(1);
  REQUIRE(h100.name == "llama70b-h100");
  h100.initial_replicas = h100.min_replicas = h100.max_replicas = 1;
  one.variants = {h100};
  const auto lengths = lognormal_lengths(512, 0.8, 128, 0.8);
  const SloTargets slo{2000, 100};
  const capstan::SloTargets targets{2000, 100};

  // The replica's own costs, as its profile sets them.
  const HardwareProfile& p = h100.profile;
  auto qa = QueueAnalyzer::create({p.overhead_ms, p.compute_ms_per_token, p.kv_read_ms_per_token},
                                  {h100.server.max_num_seqs, 10 * h100.server.max_num_seqs}, {512, 128});
  REQUIRE(qa.ok());
  const double d1 = qa->decode_time_ms(1);

  const std::vector<std::vector<ItlTailPoint>> windows = probe_itl_spread(one, 6, lengths, slo, *qa).windows;
  const auto spread = fit_itl_spread(windows);
  REQUIRE(spread);
  const double sized_ms = itl_sizing_target_ms(*spread, slo.itl_ms, d1, 0.01);
  auto sized = qa->size(capstan::SloTargets{slo.ttft_ms, sized_ms});
  REQUIRE(sized.ok());
  const double capacity = sized->at_lambda_star.throughput_rps;

  SustainableRateOptions options;
  options.attainment_target = 0.99;
  options.probe_requests = 20000;  // 200 misses at the target: a tight figure
  const double truth = sustainable_rate(one, 0, lengths, slo, options).rate_rps;
  INFO("spread location " << spread->location << " scale " << spread->scale << ", mean ITL sized to " << sized_ms
                          << " ms: " << capacity << " req/s against the simulator's " << truth);
  CHECK(capacity == Approx(truth).epsilon(0.06));
  // The mean alone, sized to the target, promises far more than the replica serves.
  auto mean_only = qa->size(targets);
  REQUIRE(mean_only.ok());
  CHECK(mean_only->at_lambda_star.throughput_rps > 1.15 * truth);
}

}  // namespace capstan::sim
