#include "sim/oracle.hpp"

#include <catch2/catch.hpp>

#include "domain/policies/fixed_policy.hpp"
#include "sim/harness.hpp"
#include "sim/sim_fixtures.hpp"
#include "sim/synthetic_trace.hpp"

using namespace capstan::sim;
using capstan::SloTargets;
using capstan::sim::testing::one_variant_fleet;

namespace {

SustainableRateOptions quick_probes() {
  SustainableRateOptions o;
  o.probe_requests = 400;
  o.min_probe_s = 60;
  o.max_probe_s = 600;
  o.bisection_steps = 5;
  o.seed = 3;
  return o;
}

std::unique_ptr<TraceSource> diurnal(std::uint64_t seed) {
  return std::make_unique<SyntheticTrace>(diurnal_rate(20, 0.9, 1200, 0), 2400,
                                          lognormal_lengths(1024, 0.6, 128, 0.6), seed);
}

}  // namespace

TEST_CASE("The cheapest mix covers the demand at least weight, within each variant's bounds") {
  const std::vector<MixOption> options{{2, 4, 0, 10}, {5, 4, 0, 10}};
  CHECK(cheapest_mix(options, 9) == std::vector<int>{0, 2});
  CHECK(cheapest_mix(options, 0) == std::vector<int>{0, 0});
  CHECK(cheapest_mix(options, 4.5) == std::vector<int>{0, 1});
  const std::vector<MixOption> with_min{{2, 4, 1, 10}, {5, 4, 0, 10}};
  CHECK(cheapest_mix(with_min, 9) == std::vector<int>{1, 2});
  CHECK(cheapest_mix(with_min, 1) == std::vector<int>{1, 0});
  // More than everything at max: everything at max.
  CHECK(cheapest_mix({{2, 4, 0, 3}, {5, 4, 0, 1}}, 100) == std::vector<int>{3, 1});
  // A cheap slow variant beats an expensive fast one when it covers the demand for less.
  CHECK(cheapest_mix({{2, 1, 0, 10}, {5, 4, 0, 10}}, 5) == std::vector<int>{3, 0});
}

TEST_CASE("The sustainable rate at the SLO is monotone in the SLO") {
  const auto fleet = one_variant_fleet(1, 0, 0, 0.01);
  const auto lengths = lognormal_lengths(1024, 0.6, 128, 0.6);
  double previous = 0;
  for (double ttft_ms : {150.0, 400.0, 1500.0}) {
    const auto r = sustainable_rate(fleet.variants[0], 0, lengths, {ttft_ms, 0}, quick_probes());
    INFO("TTFT target " << ttft_ms << ": " << r.rate_rps << " req/s after " << r.probes.size() << " probes");
    CHECK(r.rate_rps > 0);
    CHECK(r.rate_rps >= previous);
    previous = r.rate_rps;
  }
  const auto tight_itl = sustainable_rate(fleet.variants[0], 0, lengths, {1500, 15}, quick_probes());
  CHECK(tight_itl.rate_rps <= previous);
  // A target below one unloaded prefill cannot be met at any rate.
  const auto impossible = sustainable_rate(fleet.variants[0], 0, lengths, {1, 0}, quick_probes());
  CHECK(impossible.rate_rps == 0);
}

TEST_CASE("The per-replica estimate stays below a static fleet that meets the SLO on a smooth diurnal trace") {
  const auto fleet = one_variant_fleet(5, 120, 120, 0.01);
  const SloTargets slo{1500, 60};
  auto demand_trace = diurnal(4);
  auto demand = measure_trace_demand(*demand_trace, 60, 5000, 4);
  REQUIRE(demand.ok());
  OracleOptions options;
  options.rate = quick_probes();
  const Oracle oracle = compute_oracle(fleet, demand.value(), slo, options);
  REQUIRE(oracle.feasible);
  REQUIRE(oracle.gpu_hours > 0);
  CHECK(oracle.windows.size() == 8);
  CHECK(oracle.windows_over_capacity == 0);
  // Demand varies through the trace, so the plan varies, and increases are charged.
  int lowest = 100, highest = 0;
  for (const auto& w : oracle.windows) {
    lowest = std::min(lowest, w.replicas[0]);
    highest = std::max(highest, w.replicas[0]);
  }
  CHECK(highest > lowest);
  CHECK(oracle.startup_gpu_hours > 0);

  capstan::FixedPolicy fixed;
  HarnessOptions h;
  h.slo = slo;
  h.seed = 4;
  auto run = run_policy(fixed, fleet, diurnal(4), h);
  REQUIRE(run.ok());
  INFO("fixed " << run.value().report.gpu_hours << " GPU-h, attainment " << run.value().report.slo_attainment
                << "; oracle " << oracle.gpu_hours);
  CHECK(run.value().report.slo_attainment >= 0.95);
  CHECK(run.value().report.gpu_hours >= oracle.gpu_hours);
}

TEST_CASE("The demand pass counts arrivals per bucket and samples lengths within its bound") {
  auto trace = diurnal(8);
  auto d = measure_trace_demand(*trace, 60, 100, 8);
  REQUIRE(d.ok());
  CHECK(d.value().arrivals_per_bucket.size() == 40);
  long long sum = 0;
  for (long long n : d.value().arrivals_per_bucket) sum += n;
  CHECK(sum == d.value().requests);
  CHECK(d.value().length_sample.size() == 100);
  CHECK(d.value().last_arrival_s < 2400);
}
