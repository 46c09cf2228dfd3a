// sim/oracle.* and sim/sustainable_rate.* on a fleet split into prefill and decode
// variants: each role is probed beside an unconstrained counterpart, and each role's
// mix covers the whole demand.
#include "sim/oracle.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "sim/sim_fixtures.hpp"

using namespace capstan::sim;
using capstan::SloTargets;

namespace {

const std::string kSplitFleet = std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios/fleets/llama70b-disagg.yaml";

SustainableRateOptions quick_probes() {
  SustainableRateOptions o;
  o.probe_requests = 600;
  o.min_probe_s = 60;
  o.max_probe_s = 600;
  o.bisection_steps = 4;
  o.counterpart_replicas = 4;
  return o;
}

// A constant demand of rate_rps over duration_s, 512-in / 128-out requests.
TraceDemand constant_demand(double rate_rps, double duration_s) {
  TraceDemand d;
  d.bucket_s = 60;
  for (double t = 0; t < duration_s; t += d.bucket_s) d.arrivals_per_bucket.push_back(std::llround(rate_rps * 60));
  d.requests = static_cast<long long>(rate_rps * duration_s);
  d.last_arrival_s = duration_s;
  d.length_sample = {{512, 128}};
  return d;
}

}  // namespace

TEST_CASE("Each role of a split is probed on its own, beside an unconstrained counterpart") {
  auto fleet = load_fleet_config(kSplitFleet);
  REQUIRE(fleet.ok());
  const auto lengths = fixed_lengths(512, 128);
  const SloTargets slo{2000, 100};
  const SustainableRate prefill = sustainable_rate(fleet.value(), 0, lengths, slo, quick_probes());
  const SustainableRate decode = sustainable_rate(fleet.value(), 1, lengths, slo, quick_probes());
  // sim/README.md measures about 27 req/s per prefill replica and 18 per decode replica
  // at these lengths (1P + 2D and 1P + 1D).
  CHECK(prefill.rate_rps > 22);
  CHECK(prefill.rate_rps < 34);
  CHECK(decode.rate_rps > 15);
  CHECK(decode.rate_rps < 22);
  // A role-both variant probed through the fleet overload is probed alone, as before.
  FleetConfig whole = fleet.value();
  whole.variants.resize(1);
  whole.variants[0].role = capstan::Role::kBoth;
  const SustainableRate alone = sustainable_rate(whole.variants[0], whole.client_timeout_s, lengths, slo, quick_probes());
  CHECK(sustainable_rate(whole, 0, lengths, slo, quick_probes()).rate_rps == alone.rate_rps);
}

TEST_CASE("The oracle plans each role of a split for the whole demand") {
  auto fleet = load_fleet_config(kSplitFleet);
  REQUIRE(fleet.ok());
  OracleOptions o;
  o.rate = quick_probes();
  const Oracle oracle = compute_oracle(fleet.value(), constant_demand(40, 900), {2000, 100}, o);
  REQUIRE(oracle.feasible);
  REQUIRE(oracle.sustainable.size() == 2);
  const double p = oracle.sustainable[0].rate_rps, d = oracle.sustainable[1].rate_rps;
  REQUIRE_FALSE(oracle.windows.empty());
  int loaded = 0;
  for (const OracleWindow& w : oracle.windows) {
    CHECK_FALSE(w.over_capacity);
    if (w.demand_rps == 0) continue;  // the window past the last arrival
    ++loaded;
    CHECK(w.demand_rps == 40);
    CHECK(w.replicas[0] == static_cast<int>(std::ceil(40 / p)));
    CHECK(w.replicas[1] == static_cast<int>(std::ceil(40 / d)));
  }
  CHECK(loaded == 3);
  CHECK(oracle.gpu_hours > 0);
}

TEST_CASE("Half a split sustains nothing and makes the oracle infeasible") {
  auto fleet = load_fleet_config(kSplitFleet);
  REQUIRE(fleet.ok());
  FleetConfig half = fleet.value();
  half.variants.resize(1);  // prefill only: no request ever finishes
  const auto lengths = fixed_lengths(512, 128);
  CHECK(sustainable_rate(half, 0, lengths, {2000, 100}, quick_probes()).rate_rps == 0);
  OracleOptions o;
  o.rate = quick_probes();
  CHECK_FALSE(compute_oracle(half, constant_demand(10, 300), {2000, 100}, o).feasible);
}
