#include "sim/trace_spread.hpp"

#include <catch2/catch.hpp>

#include "sim/native_trace.hpp"
#include "sim/trace_open.hpp"
#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

namespace {

// A trace quantised to 3-second buckets, as Mooncake's: `per_bucket` requests at each
// multiple of 3 s.
std::string bucketed(int buckets, int per_bucket) {
  std::string text;
  for (int b = 0; b < buckets; ++b)
    for (int i = 0; i < per_bucket; ++i) text += std::to_string(3 * b) + ",10,10\n";
  return text;
}

std::vector<double> arrivals(const Drained& d) {
  std::vector<double> out;
  for (const auto& r : d.requests) out.push_back(r.arrival_s);
  return out;
}

}  // namespace

TEST_CASE("Requests sharing a timestamp are spread evenly over the given seconds") {
  const auto p = write_temp("groups.csv", "0,1,1\n0,2,1\n0,3,1\n3,4,1\n6,5,1\n6,6,1\n");
  auto spread = spread_buckets(std::make_unique<NativeTrace>(p), 3);
  const auto d = drain(*spread);
  REQUIRE(d.error.empty());
  CHECK(arrivals(d) == std::vector<double>{0, 1, 2, 3, 6, 7.5});
  CHECK(d.requests[2].input_tokens == 3);  // order within a group is kept
}

TEST_CASE("A spread never reaches the next timestamp, so arrivals stay in order") {
  const auto p = write_temp("close.csv", "0,1,1\n0,1,1\n0,1,1\n0,1,1\n1,1,1\n");
  const auto d = drain(*spread_buckets(std::make_unique<NativeTrace>(p), 10));
  CHECK(arrivals(d) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
}

TEST_CASE("Spreading is deterministic and applies before the window through open_trace") {
  const auto p = write_temp("bucketed.csv", bucketed(50, 6));
  TraceOptions o;
  o.spread_buckets_s = 3;
  o.window_from_s = 30;
  o.window_to_s = 60;
  auto a = open_trace(p, o);
  auto b = open_trace(p, o);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const auto da = drain(*a.value()), db = drain(*b.value());
  CHECK(arrivals(da) == arrivals(db));
  REQUIRE(da.requests.size() == 60);
  for (std::size_t i = 0; i < da.requests.size(); ++i) CHECK(da.requests[i].arrival_s == Approx(0.5 * i));
}

TEST_CASE("Quantised timestamps are detected with their bucket, smooth traces are not") {
  std::vector<Request> quantised, smooth;
  for (int i = 0; i < 600; ++i) {
    Request r;
    r.arrival_s = 3.0 * (i / 6);
    quantised.push_back(r);
    r.arrival_s = 0.37 * i;
    smooth.push_back(r);
  }
  const auto q = detect_quantised(quantised);
  REQUIRE(q);
  CHECK(q->shared_share == Approx(500.0 / 599));
  CHECK(q->bucket_s == 3);
  CHECK_FALSE(detect_quantised(smooth));
  CHECK_FALSE(detect_quantised(std::vector<Request>(quantised.begin(), quantised.begin() + 50)));  // too few to judge
  CHECK(quantised_warning("t.csv", 600, *q) ==
        "t.csv: 83% of the first 600 requests arrive at the same time as the one before (timestamps in buckets of "
        "about 3 s); they replay as bursts: --spread-buckets 3 spreads them");
}

TEST_CASE("Opening a quantised trace warns once through on_warning, and not when it is spread") {
  const auto p = write_temp("bucketed_warn.csv", bucketed(50, 6));
  std::vector<std::string> warnings;
  TraceOptions o;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  auto t = open_trace(p, o);
  REQUIRE(t.ok());
  CHECK(drain(*t.value()).requests.size() == 300);  // the requests read ahead are replayed
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("--spread-buckets 3"));
  o.spread_buckets_s = 3;
  REQUIRE(open_trace(p, o).ok());
  CHECK(warnings.size() == 1);
  REQUIRE(open_trace(write_temp("smooth.csv", "0,1,1\n0.5,1,1\n"), o).ok());
  CHECK(warnings.size() == 1);
}
