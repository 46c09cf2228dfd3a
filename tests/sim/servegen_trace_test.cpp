#include "sim/servegen_trace.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/trace_open.hpp"
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

namespace {

// Draws lengths as a log-normal would, counting how many it drew.
class CountingLengths : public LengthSource {
 public:
  TokenLengths draw(Rng& rng) const override {
    ++draws;
    return {1 + static_cast<int>(rng.uniform() * 1000), 1 + static_cast<int>(rng.uniform() * 100)};
  }
  mutable long long draws = 0;
};

}  // namespace

TEST_CASE("A ServeGen window holds exactly the requests of the whole run in that window") {
  const auto lengths = std::make_shared<CountingLengths>();
  TraceOptions all;
  all.servegen_lengths = lengths;
  all.seed = 3;
  auto whole = open_trace(sim_data("servegen_m-mid_chunk-93_excerpt.csv"), all);
  REQUIRE(whole.ok());
  std::vector<Request> expected;
  for (;;) {
    auto r = whole.value()->next();
    REQUIRE(r.ok());
    REQUIRE(r.value());
    if (r.value()->arrival_s >= 53000) break;
    if (r.value()->arrival_s >= 50000) expected.push_back(*r.value());
  }
  REQUIRE(expected.size() > 100000);  // about 95 req/s
  TraceOptions window = all;
  window.window_from_s = 50000;  // mid-window: 49800 + 200 s
  window.window_to_s = 53000;
  lengths->draws = 0;
  auto cut = open_trace(sim_data("servegen_m-mid_chunk-93_excerpt.csv"), window);
  REQUIRE(cut.ok());
  const auto got = drain(*cut.value());
  REQUIRE(got.error.empty());
  REQUIRE(got.requests.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(got.requests[i].arrival_s == expected[i].arrival_s - 50000);
    CHECK(got.requests[i].input_tokens == expected[i].input_tokens);
    CHECK(got.requests[i].output_tokens == expected[i].output_tokens);
  }
  // Seeking drew nothing for the 83 windows before (about 2.7 million requests): only
  // the first 200 s of the window the cut starts in (94 req/s), and one past the end.
  CHECK(lengths->draws < static_cast<long long>(expected.size()) + 94 * 200 * 1.2);
}
