#include "sim/native_trace.hpp"

#include <catch2/catch.hpp>

#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

TEST_CASE("The native CSV parses with or without its header") {
  const auto p = write_temp("native.csv", "arrival_s,input_tokens,output_tokens\n0.5,100,20\n1.25,200,30\n");
  NativeTrace t(p);
  const auto d = drain(t);
  REQUIRE(d.error.empty());
  REQUIRE(d.requests.size() == 2);
  CHECK(d.requests[1].arrival_s == 1.25);
  CHECK(d.requests[1].input_tokens == 200);
  const auto q = write_temp("native_nohdr.csv", "0,1,1\n\n3,4,5\n");
  NativeTrace u(q);
  CHECK(drain(u).requests.size() == 2);
}

TEST_CASE("Malformed native rows are rejected with the file and line number") {
  const auto p = write_temp("native_bad.csv", "arrival_s,input_tokens,output_tokens\n0.5,100,20\n1.0,0,5\n");
  NativeTrace t(p);
  CHECK_THAT(drain(t).error, Catch::Contains("native_bad.csv: line 3") && Catch::Contains("input_tokens"));
  const auto q = write_temp("native_fields.csv", "0.5,100\n");
  NativeTrace u(q);
  CHECK_THAT(drain(u).error, Catch::Contains("line 1") && Catch::Contains("3 fields"));
}
