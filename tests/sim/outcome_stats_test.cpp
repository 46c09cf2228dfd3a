#include "sim/outcome_stats.hpp"

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/simulation.hpp"
#include "sim/synthetic_trace.hpp"

using namespace capstan::sim;
using capstan::SloTargets;
using capstan::sim::testing::one_variant_fleet;

namespace {

RequestOutcome done(double ttft_s, double itl_s) {
  RequestOutcome o;
  o.end_s = 1;
  o.ttft_s = ttft_s;
  o.mean_itl_s = itl_s;
  return o;
}

struct LongRun {
  std::size_t max_recent = 0;
  std::size_t sketch_cells = 0;
  long long completed = 0;
};

LongRun run_for(double duration_s) {
  Simulation sim(one_variant_fleet(2, 0),
                 std::make_unique<SyntheticTrace>(poisson_rate(8.0), duration_s,
                                                  lognormal_lengths(256, 0.5, 32, 0.5), 3),
                 3, {1000, 50});
  LongRun r;
  for (double t = 30; sim.advance_to(t); t += 30) r.max_recent = std::max(r.max_recent, sim.recent_outcomes().size());
  r.sketch_cells = sim.stats().ttft_ms().bucket_count() + sim.stats().itl_ms().bucket_count();
  r.completed = sim.stats().completed();
  return r;
}

}  // namespace

TEST_CASE("Attainment counts completed requests within both targets, failures miss") {
  OutcomeStats stats({1000, 50});
  stats.add(done(0.5, 0.02));   // met
  stats.add(done(1.5, 0.02));   // TTFT over
  stats.add(done(0.5, 0.06));   // ITL over
  RequestOutcome failed;
  failed.failed = true;
  stats.add(failed);
  CHECK(stats.completed() == 3);
  CHECK(stats.failed() == 1);
  CHECK(stats.met_slo() == 1);
  OutcomeStats unconstrained;
  unconstrained.add(done(100, 10));
  CHECK(unconstrained.met_slo() == 1);
}

TEST_CASE("A 0 target is always met: a TTFT-only SLO ignores ITL and an ITL-only SLO ignores TTFT") {
  const SloTargets ttft_only{1000, 0}, itl_only{0, 50};
  CHECK(meets_slo(done(0.5, 10), ttft_only));   // ITL of 10 s, unconstrained
  CHECK_FALSE(meets_slo(done(1.5, 0.01), ttft_only));
  CHECK(meets_slo(done(100, 0.02), itl_only));  // TTFT of 100 s, unconstrained
  CHECK_FALSE(meets_slo(done(0.1, 0.06), itl_only));
  RequestOutcome failed;
  failed.failed = true;
  CHECK_FALSE(meets_slo(failed, ttft_only));    // a failed request meets no SLO
  CHECK_FALSE(meets_slo(failed, itl_only));
}

TEST_CASE("A long run keeps outcome storage bounded: aggregates of fixed size, one tick of outcomes") {
  const LongRun short_run = run_for(1800);
  const LongRun long_run = run_for(18000);
  CHECK(long_run.completed > 9 * short_run.completed);
  // The aggregates are the same size whatever the length of the trace...
  CHECK(long_run.sketch_cells == short_run.sketch_cells);
  // ...and only the requests finished within one 30 s step are held individually.
  CHECK(long_run.max_recent < 8 * 30 * 2);
  CHECK(long_run.max_recent < static_cast<std::size_t>(long_run.completed / 100));
}
