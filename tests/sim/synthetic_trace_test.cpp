#include "sim/synthetic_trace.hpp"

#include <catch2/catch.hpp>

#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

TEST_CASE("Poisson arrivals have the requested rate and unit inter-arrival CV") {
  SyntheticTrace t(poisson_rate(20), 1000, fixed_lengths(10, 1), 3);
  const auto d = drain(t);
  REQUIRE(d.requests.size() == Approx(20000).epsilon(0.03));
  double sum = 0, sum2 = 0;
  for (std::size_t i = 1; i < d.requests.size(); ++i) {
    const double gap = d.requests[i].arrival_s - d.requests[i - 1].arrival_s;
    sum += gap;
    sum2 += gap * gap;
  }
  const double n = static_cast<double>(d.requests.size() - 1);
  const double mean = sum / n;
  CHECK(std::sqrt(sum2 / n - mean * mean) / mean == Approx(1.0).epsilon(0.05));
}

TEST_CASE("Diurnal, step and burst curves shape the arrival counts") {
  SyntheticTrace diurnal(diurnal_rate(10, 1.0, 200, 0), 200, fixed_lengths(1, 1), 1);
  int rising = 0, falling = 0;
  for (const auto& r : drain(diurnal).requests) (r.arrival_s < 100 ? rising : falling)++;
  CHECK(rising > 3 * falling);

  SyntheticTrace step(step_rate({{0, 1}, {100, 10}}), 200, fixed_lengths(1, 1), 2);
  int before = 0, after = 0;
  for (const auto& r : drain(step).requests) (r.arrival_s < 100 ? before : after)++;
  CHECK(after > 5 * before);

  SyntheticTrace burst(burst_rate(1, 50, 100, 10), 1000, fixed_lengths(1, 1), 3);
  int in_burst = 0, outside = 0;
  for (const auto& r : drain(burst).requests) (std::fmod(r.arrival_s, 100) < 10 ? in_burst : outside)++;
  CHECK(in_burst == Approx(5100).epsilon(0.1));
  CHECK(outside == Approx(900).epsilon(0.15));
}

TEST_CASE("Synthetic traces are a pure function of their seed") {
  SyntheticTrace a(poisson_rate(5), 100, lognormal_lengths(100, 1, 10, 1), 8);
  SyntheticTrace b(poisson_rate(5), 100, lognormal_lengths(100, 1, 10, 1), 8);
  const auto da = drain(a), db = drain(b);
  REQUIRE(da.requests.size() == db.requests.size());
  for (std::size_t i = 0; i < da.requests.size(); ++i) {
    CHECK(da.requests[i].arrival_s == db.requests[i].arrival_s);
    CHECK(da.requests[i].input_tokens == db.requests[i].input_tokens);
  }
}

TEST_CASE("A prompt drawn past input_max is cut to it, and the same draws stay below it") {
  // CV 2 puts about one prompt in forty past four times the mean.
  SyntheticTrace open(poisson_rate(20), 500, lognormal_lengths(1000, 2, 10, 0), 4);
  SyntheticTrace capped(poisson_rate(20), 500, lognormal_lengths(1000, 2, 10, 0, 4000), 4);
  const auto a = drain(open), b = drain(capped);
  REQUIRE(a.requests.size() == b.requests.size());
  int cut = 0;
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    CHECK(b.requests[i].input_tokens == std::min(a.requests[i].input_tokens, 4000));
    cut += a.requests[i].input_tokens > 4000;
  }
  CHECK(cut > 50);
}
