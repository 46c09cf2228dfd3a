#include "sim/calibration.hpp"

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"

using namespace capstan::sim;
using capstan::sim::testing::profiles_dir;
using capstan::sim::testing::sim_data;

namespace {

struct Case {
  const char* hardware;
  const char* profile;
  double mape_bound;     // documented in sim/README.md
  double max_err_bound;
};

}  // namespace

TEST_CASE("Shipped profiles reproduce the splitwise measurements within the documented error") {
  for (const Case c : {Case{"a100-80gb", "llama2-70b-a100-tp4", 0.03, 0.08},
                       Case{"h100-80gb", "llama2-70b-h100-tp4", 0.05, 0.26}}) {
    INFO(c.profile);
    auto points = read_splitwise_points(sim_data("splitwise_llama2-70b_tp4.csv"), "llama2-70b", c.hardware, 4);
    REQUIRE(points.ok());
    CHECK(points->size() == 13 + 19);  // batch-1 prefills + every decode configuration
    auto profile = load_profile(profiles_dir() + "/" + c.profile + ".yaml");
    REQUIRE(profile.ok());
    const auto err = fit_error(profile.value(), points.value());
    INFO("worst: " << err.worst_label);
    CHECK(err.mape <= c.mape_bound);
    CHECK(err.max_rel_error <= c.max_err_bound);
    CHECK(err.mape == Approx(profile->fit_mape).margin(0.001));
    CHECK(err.max_rel_error == Approx(profile->fit_max_rel_error).margin(0.001));
  }
}

TEST_CASE("Refitting the measurements gives the shipped coefficients") {
  for (const auto& [hw, name] : {std::pair{"a100-80gb", "llama2-70b-a100-tp4"},
                                 std::pair{"h100-80gb", "llama2-70b-h100-tp4"}}) {
    INFO(name);
    auto points = read_splitwise_points(sim_data("splitwise_llama2-70b_tp4.csv"), "llama2-70b", hw, 4);
    REQUIRE(points.ok());
    auto shipped = load_profile(profiles_dir() + "/" + name + ".yaml");
    REQUIRE(shipped.ok());
    auto fitted = fit_profile(points.value(), shipped.value());
    REQUIRE(fitted.ok());
    CHECK(fitted->overhead_ms == Approx(shipped->overhead_ms).epsilon(1e-4));
    CHECK(fitted->compute_ms_per_token == Approx(shipped->compute_ms_per_token).epsilon(1e-4));
    CHECK(fitted->kv_read_ms_per_token == Approx(shipped->kv_read_ms_per_token).epsilon(1e-4));
    CHECK(fitted->prefill_attention_ms_per_token2 ==
          Approx(shipped->prefill_attention_ms_per_token2).epsilon(1e-4));
  }
}

TEST_CASE("The H100 profile is faster than the A100 profile for prefill and decode") {
  auto a100 = load_profile(profiles_dir() + "/llama2-70b-a100-tp4.yaml");
  auto h100 = load_profile(profiles_dir() + "/llama2-70b-h100-tp4.yaml");
  REQUIRE(a100.ok());
  REQUIRE(h100.ok());
  IterationWork prefill{2048, 2048, 0, 2048.0 * 2048.0};
  IterationWork decode{32, 0, 32 * 1024, 0};
  CHECK(expected_iteration_ms(*h100, prefill) < expected_iteration_ms(*a100, prefill));
  CHECK(expected_iteration_ms(*h100, decode) < expected_iteration_ms(*a100, decode));
}

TEST_CASE("Reading a missing perf file is an error naming the file") {
  auto points = read_splitwise_points("/nonexistent/perf.csv", "m", "h", 1);
  REQUIRE_FALSE(points.ok());
  CHECK_THAT(points.error().message, Catch::Contains("/nonexistent/perf.csv"));
}
