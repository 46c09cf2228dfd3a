#include "sim/trace_open.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"
#include "sim/trace_test_util.hpp"

using namespace capstan::sim;
using namespace capstan::sim::testing;

TEST_CASE("Trace formats are detected from content") {
  auto fmt = [](const std::string& path) {
    auto f = detect_trace_format(path);
    REQUIRE(f.ok());
    return f.value();
  };
  CHECK(fmt(sim_data("azure_conv_excerpt.csv")) == TraceFormat::kAzure);
  CHECK(fmt(sim_data("mooncake_excerpt.jsonl")) == TraceFormat::kMooncake);
  CHECK(fmt(sim_data("servegen_m-mid_chunk-93_excerpt.csv")) == TraceFormat::kServeGen);
  CHECK(fmt(write_temp("n1.csv", "arrival_s,input_tokens,output_tokens\n1,2,3\n")) == TraceFormat::kNative);
  CHECK(fmt(write_temp("n2.csv", "1,2,3\n")) == TraceFormat::kNative);
  CHECK_FALSE(detect_trace_format(write_temp("junk.txt", "hello world\n")).ok());
}

TEST_CASE("A forced format overrides detection") {
  TraceOptions o;
  o.format = TraceFormat::kNative;
  auto t = open_trace(sim_data("azure_conv_excerpt.csv"), o);
  REQUIRE_FALSE(t.ok());  // opening reads the first request
  CHECK_THAT(t.error().message, Catch::Contains("line 1"));
}

TEST_CASE("A trace without requests, or a window without any, is an error at open") {
  auto empty = open_trace(write_temp("header_only.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"), {});
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.error().message, Catch::EndsWith("header_only.csv: empty trace: no requests"));
  TraceOptions late;
  late.window_from_s = 100;
  late.window_to_s = 200;
  auto window = open_trace(write_temp("early.csv", "0,1,1\n50,1,1\n"), late);
  REQUIRE_FALSE(window.ok());
  CHECK_THAT(window.error().message, Catch::EndsWith("early.csv: no requests in the window 100:200 s"));
}

TEST_CASE("Replay options out of range are refused before the trace is read") {
  const auto p = write_temp("one.csv", "0,1,1\n");
  for (auto set : {+[](TraceOptions& o) { o.speedup = 0; }, +[](TraceOptions& o) { o.rate_scale = 1e9; },
                   +[](TraceOptions& o) { o.rate_scale = std::nan(""); }, +[](TraceOptions& o) { o.spread_buckets_s = -1; },
                   +[](TraceOptions& o) { o.window_from_s = std::nan(""); }}) {
    TraceOptions o;
    set(o);
    CHECK_FALSE(open_trace(p, o).ok());
  }
}

TEST_CASE("Window, speedup and rate scale transform the arrivals") {
  const auto p = write_temp("opts.csv", "0,1,1\n10,1,1\n20,1,1\n30,1,1\n40,1,1\n");
  TraceOptions o;
  o.window_from_s = 10;
  o.window_to_s = 40;
  o.speedup = 2;
  auto t = open_trace(p, o);
  REQUIRE(t.ok());
  const auto d = drain(*t.value());
  REQUIRE(d.requests.size() == 3);
  CHECK(d.requests[0].arrival_s == 0);
  CHECK(d.requests[2].arrival_s == 10);

  TraceOptions scale;
  scale.rate_scale = 2.5;
  scale.seed = 4;
  auto azure = open_trace(sim_data("azure_conv_excerpt.csv"), scale);
  REQUIRE(azure.ok());
  CHECK(drain(*azure.value()).requests.size() == Approx(2500).epsilon(0.05));
  scale.rate_scale = 0.3;
  auto thin = open_trace(sim_data("azure_conv_excerpt.csv"), scale);
  REQUIRE(thin.ok());
  CHECK(drain(*thin.value()).requests.size() == Approx(300).epsilon(0.2));
}

TEST_CASE("Window strings parse as FROM:TO") {
  auto w = parse_window("300:900");
  REQUIRE(w.ok());
  CHECK(w->first == 300);
  CHECK(w->second == 900);
  CHECK(parse_window("300:")->second == std::numeric_limits<double>::infinity());
  CHECK_FALSE(parse_window("900:300").ok());
  CHECK_FALSE(parse_window("abc").ok());
}

TEST_CASE("Every shipped excerpt opens through open_trace") {
  for (const char* name : {"azure_conv_excerpt.csv", "mooncake_excerpt.jsonl", "servegen_m-mid_chunk-93_excerpt.csv"}) {
    INFO(name);
    auto t = open_trace(sim_data(name), {});
    REQUIRE(t.ok());
    const auto d = drain(*t.value(), 500);
    CHECK(d.error.empty());
    CHECK(d.requests.size() >= 200);
  }
}
