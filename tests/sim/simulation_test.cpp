#include "sim/simulation.hpp"

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/synthetic_trace.hpp"

using namespace capstan::sim;
using capstan::sim::testing::VectorTrace;
using capstan::sim::testing::one_variant_fleet;
using capstan::sim::testing::request;

namespace {

std::unique_ptr<TraceSource> poisson(double rate_rps, double duration_s, std::uint64_t seed) {
  return std::make_unique<SyntheticTrace>(poisson_rate(rate_rps), duration_s,
                                          lognormal_lengths(256, 0.5, 64, 0.5), seed);
}

RunReport scripted_run(std::uint64_t seed) {
  auto cfg = one_variant_fleet(1, 20.0, 60.0, 0.05);
  auto trace = std::make_unique<SyntheticTrace>(diurnal_rate(6, 0.8, 300, 0), 600,
                                                lognormal_lengths(512, 1.0, 128, 1.0), seed);
  Simulation sim(cfg, std::move(trace), seed, {1000, 50});
  for (double t = 10; sim.advance_to(t); t += 10) {
    const auto obs = sim.observe();
    double load = 0;
    for (const auto& p : obs.variants[0].pods) load += p.queue_length + p.running;
    REQUIRE(sim.set_desired("v", 1 + static_cast<int>(load / 8)).ok());
  }
  return sim.report();
}

}  // namespace

TEST_CASE("Little's law holds on a long Poisson run within 2 percent") {
  Simulation sim(one_variant_fleet(1, 0), poisson(4.0, 4000, 11), 3);
  double in_system_sum = 0;
  long long samples = 0;
  const double step_s = 0.25;
  for (double t = step_s; sim.advance_to(t); t += step_s) {
    in_system_sum += sim.observe().requests_in_system;
    ++samples;
  }
  const auto report = sim.report();
  REQUIRE(report.completed > 15000);
  REQUIRE(report.failed == 0);
  const double span_s = samples * step_s;
  const double lambda_rps = static_cast<double>(report.completed) / span_s;
  const double l_sampled = in_system_sum / static_cast<double>(samples);
  INFO("L sampled " << l_sampled << ", lambda*W " << lambda_rps * report.e2e_mean_s);
  CHECK(l_sampled == Approx(lambda_rps * report.e2e_mean_s).epsilon(0.02));
}

TEST_CASE("The same seed gives an identical report, another seed does not") {
  const auto a = scripted_run(42);
  const auto b = scripted_run(42);
  const auto c = scripted_run(43);
  CHECK(a.requests == b.requests);
  CHECK(a.completed == b.completed);
  CHECK(a.failed == b.failed);
  CHECK(a.ttft_p50_ms == b.ttft_p50_ms);
  CHECK(a.ttft_p99_ms == b.ttft_p99_ms);
  CHECK(a.itl_p50_ms == b.itl_p50_ms);
  CHECK(a.itl_p99_ms == b.itl_p99_ms);
  CHECK(a.slo_attainment == b.slo_attainment);
  CHECK(a.gpu_hours == b.gpu_hours);
  CHECK(a.cost == b.cost);
  CHECK(a.scale_actions.size() == b.scale_actions.size());
  CHECK(a.requests > 1000);
  CHECK(a.scale_actions.size() > 0);
  CHECK((a.requests != c.requests || a.ttft_p99_ms != c.ttft_p99_ms));
}

TEST_CASE("Requests abandoned after the client timeout count as failures in the report") {
  // No replica until one is asked for at t = 0 with a 60 s cold start; clients give up at 30 s.
  std::vector<Request> reqs;
  for (int i = 0; i < 10; ++i) reqs.push_back(request(i, 100, 10));       // t = 0..9: time out
  for (int i = 0; i < 10; ++i) reqs.push_back(request(45 + i, 100, 10));  // served after 60 s
  Simulation sim(one_variant_fleet(0, 60.0, 30.0), std::make_unique<VectorTrace>(reqs), 1);
  REQUIRE(sim.set_desired("v", 1).ok());
  for (double t = 1; sim.advance_to(t); t += 1) {
  }
  const auto report = sim.report();
  CHECK(report.requests == 20);
  CHECK(report.failed == 10);
  CHECK(report.completed == 10);
  CHECK(report.in_flight == 0);
  CHECK(report.slo_attainment == Approx(0.5));
}

TEST_CASE("observe() reports per-pod metrics over the window since the last observation") {
  Simulation sim(one_variant_fleet(2, 0), poisson(10.0, 200, 5), 9);
  sim.advance_to(100);
  sim.observe();
  sim.advance_to(200);
  const auto obs = sim.observe();
  REQUIRE(obs.variants.size() == 1);
  const auto& v = obs.variants[0];
  CHECK(v.state.ready == 2);
  CHECK(v.state.current == 2);
  REQUIRE(v.pods.size() == 2);
  double rate = 0;
  for (const auto& p : v.pods) {
    rate += p.arrival_rate_rps;
    CHECK(p.ready);
    CHECK(p.seconds_since_start == Approx(200));
    CHECK(p.avg_ttft_ms > 10);
    CHECK(p.avg_itl_ms > 10);
    CHECK(p.avg_input_tokens == Approx(256).epsilon(0.15));
    CHECK(p.avg_output_tokens == Approx(64).epsilon(0.15));
    CHECK(p.kv_usage >= 0);
    CHECK(p.kv_usage <= 1);
  }
  CHECK(rate == Approx(10).epsilon(0.1));
}

TEST_CASE("observe() reports each pod's per-request ITL histogram of the requests finished in the window") {
  Simulation sim(one_variant_fleet(2, 0), poisson(10.0, 200, 5), 9);
  sim.advance_to(100);
  sim.observe();
  sim.advance_to(200);
  // The requests of the window, by their own mean ITL (recent_outcomes(): this advance).
  double finished = 0, itl_sum_ms = 0, within_50ms = 0;
  for (const auto& o : sim.recent_outcomes()) {
    if (o.failed || o.output_tokens < 2) continue;
    ++finished;
    itl_sum_ms += 1000 * o.mean_itl_s;
    if (1000 * o.mean_itl_s <= 50) ++within_50ms;
  }
  const auto obs = sim.observe();
  double count = 0, sum_ms = 0, below_50 = 0;
  for (const auto& p : obs.variants[0].pods) {
    const auto& h = p.request_itl;
    REQUIRE(h.upper_bounds_ms.size() == h.cumulative.size());
    REQUIRE_FALSE(h.upper_bounds_ms.empty());
    CHECK(h.upper_bounds_ms.front() == Approx(10));  // vLLM's TPOT buckets, in ms
    for (std::size_t i = 0; i < h.upper_bounds_ms.size(); ++i) {
      if (h.upper_bounds_ms[i] == Approx(50)) below_50 += h.cumulative[i];
    }
    count += h.count;
    sum_ms += h.sum_ms;
  }
  REQUIRE(finished > 100);
  CHECK(count == finished);
  CHECK(sum_ms == Approx(itl_sum_ms).epsilon(1e-9));
  CHECK(below_50 == within_50ms);
}

TEST_CASE("GPU-hours and cost count every replica from creation until gone") {
  std::vector<Request> reqs{request(0, 100, 10)};
  Simulation sim(one_variant_fleet(1, 100.0), std::make_unique<VectorTrace>(reqs), 1);
  sim.advance_to(1800);
  REQUIRE(sim.set_desired("v", 2).ok());
  sim.advance_to(3600);
  const auto r = sim.report();
  CHECK(r.replica_hours == Approx(1.5));
  CHECK(r.gpu_hours == Approx(6.0));
  CHECK(r.cost == Approx(3.0));
  CHECK(r.scale_actions.size() == 1);
}
