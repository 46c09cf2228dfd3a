#include "sim/azure_trace.hpp"

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

TEST_CASE("The Azure conversation excerpt parses into arrivals from time zero") {
  AzureTrace trace(sim_data("azure_conv_excerpt.csv"));
  const auto d = drain(trace);
  REQUIRE(d.error.empty());
  REQUIRE(d.requests.size() == 1000);
  CHECK(d.requests[0].arrival_s == 0);
  CHECK(d.requests[1].arrival_s == Approx(50.9951690 - 46.6805900));
  CHECK(d.requests[0].input_tokens == 374);
  CHECK(d.requests[0].output_tokens == 44);
  for (std::size_t i = 1; i < d.requests.size(); ++i) CHECK(d.requests[i].arrival_s >= d.requests[i - 1].arrival_s);
}

TEST_CASE("Azure timestamps across midnight and months stay continuous") {
  double a = 0, b = 0;
  REQUIRE(parse_azure_timestamp("2023-11-30 23:59:59.5", a));
  REQUIRE(parse_azure_timestamp("2023-12-01 00:00:00.25", b));
  CHECK(b - a == Approx(0.75));
  CHECK_FALSE(parse_azure_timestamp("2023-13-01 00:00:00", a));
  CHECK_FALSE(parse_azure_timestamp("yesterday", a));
}

TEST_CASE("Malformed Azure rows are rejected with the file and line number") {
  const auto path = write_temp("azure_bad.csv",
                               "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                               "2023-11-16 18:15:46.6805900,374,44\n"
                               "2023-11-16 18:15:50.9951690,abc,109\n");
  AzureTrace trace(path);
  const auto d = drain(trace);
  CHECK(d.requests.size() == 1);
  CHECK_THAT(d.error, Catch::Contains("azure_bad.csv: line 3") && Catch::Contains("ContextTokens"));
}

TEST_CASE("Azure rows going back in time are rejected") {
  const auto path = write_temp("azure_back.csv",
                               "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                               "2023-11-16 18:15:46.6,374,44\n"
                               "2023-11-16 18:15:40.0,374,44\n");
  AzureTrace trace(path);
  CHECK_THAT(drain(trace).error, Catch::Contains("line 3") && Catch::Contains("back in time"));
}
