#include "sim/servegen_trace.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

TEST_CASE("ServeGen windows of the shipped excerpt generate each window's rate") {
  ServeGenTrace trace({sim_data("servegen_m-mid_chunk-93_excerpt.csv")}, fixed_lengths(100, 10), 5);
  int first_window = 0, second_window = 0;
  for (;;) {
    auto r = trace.next();
    REQUIRE(r.ok());
    REQUIRE(r.value());
    if (r.value()->arrival_s >= 1200) break;
    (r.value()->arrival_s < 600 ? first_window : second_window)++;
    CHECK(r.value()->input_tokens == 100);
  }
  CHECK(first_window == Approx(22.1667 * 600).epsilon(0.05));
  CHECK(second_window == Approx(23.26 * 600).epsilon(0.05));
}

TEST_CASE("ServeGen Weibull windows, idle windows and several clients merge in time order") {
  const auto a = write_temp("sg_a.csv", "0,2.0,1.0,Weibull,1.0,1.0\n600,0,0,,0,0\n1200,1.0,1.0,Gamma,1.0,1.0\n");
  const auto b = write_temp("sg_b.csv", "0,0,0,,0,0\n600,1.0,2.0,Gamma,0.25,4.0\n");
  ServeGenTrace trace({a, b}, fixed_lengths(10, 1), 9);
  const auto d = drain(trace);
  REQUIRE(d.error.empty());
  int w0 = 0, w1 = 0, w2 = 0;
  for (std::size_t i = 0; i < d.requests.size(); ++i) {
    if (i > 0) CHECK(d.requests[i].arrival_s >= d.requests[i - 1].arrival_s);
    const double t = d.requests[i].arrival_s;
    (t < 600 ? w0 : t < 1200 ? w1 : w2)++;
  }
  CHECK(w0 == Approx(1200).epsilon(0.1));
  CHECK(w1 == Approx(600).epsilon(0.25));  // CV 2: noisier
  CHECK(w2 == Approx(600).epsilon(0.15));
  CHECK(d.requests.back().arrival_s < 1800);
}

TEST_CASE("Malformed ServeGen rows are rejected with the file and line number") {
  const auto p = write_temp("sg_bad.csv", "0,1.0,1.0,Gamma,1.0,1.0\n600,1.0,1.0,Lognormal,1.0,1.0\n");
  ServeGenTrace trace({p}, fixed_lengths(10, 1), 1);
  CHECK_THAT(drain(trace).error, Catch::Contains("sg_bad.csv: line 2") && Catch::Contains("Gamma, Weibull"));
  const auto q = write_temp("sg_short.csv", "0,1.0,1.0\n");
  ServeGenTrace trace2({q}, fixed_lengths(10, 1), 1);
  CHECK_THAT(drain(trace2).error, Catch::Contains("sg_short.csv: line 1") && Catch::Contains("6 fields"));
}
