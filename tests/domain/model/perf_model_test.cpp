#include "domain/model/perf_model.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

TEST_CASE("Prefill profile interpolates linearly between samples and clamps outside them") {
  const auto p = make_prefill_profile({{4000, 1000, 2000}, {120, 20, 50}, {30000, 40000, 35000}});
  REQUIRE(p.ok());
  CHECK(p->input_tokens == std::vector<double>{1000, 2000, 4000});  // sorted on load
  CHECK(prefill_ttft_ms(*p, 1500) == Approx(35));
  CHECK(prefill_ttft_ms(*p, 3000) == Approx(85));
  CHECK(prefill_tokens_per_s_per_gpu(*p, 3000) == Approx(32500));
  CHECK(prefill_ttft_ms(*p, 10) == 20);       // below the range
  CHECK(prefill_ttft_ms(*p, 9000) == 120);    // above the range
}

TEST_CASE("Invalid profiles are refused with the offending field named") {
  auto short_col = make_prefill_profile({{1000, 2000}, {20}, {1, 2}});
  REQUIRE_FALSE(short_col.ok());
  CHECK_THAT(short_col.error().message, Catch::Contains("prefill_ttft"));
  auto zero = make_prefill_profile({{1000}, {20}, {0}});
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error().message, Catch::Contains("prefill_thpt_per_gpu"));
  auto no_kv = make_decode_profile({{0.5}, {1000}, {10}, {1000}, 0});
  REQUIRE_FALSE(no_kv.ok());
  CHECK_THAT(no_kv.error().message, Catch::Contains("max_kv_tokens"));
  auto repeated = make_decode_profile({{0.5, 0.5}, {1000, 1000}, {10, 11}, {1000, 1000}, 1000});
  REQUIRE_FALSE(repeated.ok());
}

TEST_CASE("Best decode point is the highest KV usage within the ITL target, searched from the top") {
  // ITL dips at 0.6 (measurement noise): the search from the top still finds the
  // crossing between 0.6 and 0.8 (at 0.7).
  const auto d = make_decode_profile({{0.2, 0.4, 0.6, 0.8}, {2000, 2000, 2000, 2000}, {8, 14, 12, 20},
                                      {4000, 8000, 12000, 16000}, 100000});
  REQUIRE(d.ok());
  const DecodeOperatingPoint best = best_decode_point(*d, 16, 2000);
  CHECK(best.kv_usage == Approx(0.7));
  CHECK(best.tokens_per_s_per_gpu == Approx(14000));
  CHECK(best.itl_ms == Approx(16));
  CHECK(best_decode_point(*d, 30, 2000).kv_usage == Approx(0.8));
  CHECK(best_decode_point(*d, 5, 2000).kv_usage == Approx(0.2));  // none meets it: lowest sample
}

TEST_CASE("Decode lookups between sampled context lengths blend the two curves") {
  const auto d = make_decode_profile({{0.0, 1.0, 0.0, 1.0}, {1000, 1000, 3000, 3000}, {10, 20, 20, 40},
                                      {10000, 20000, 5000, 10000}, 100000});
  REQUIRE(d.ok());
  CHECK(decode_itl_ms(*d, 0.5, 1000) == Approx(15));
  CHECK(decode_itl_ms(*d, 0.5, 3000) == Approx(30));
  CHECK(decode_itl_ms(*d, 0.5, 2000) == Approx(22.5));
  CHECK(decode_itl_ms(*d, 0.5, 9000) == Approx(30));  // clamped to the longest context
  CHECK(best_decode_point(*d, 20, 2000).tokens_per_s_per_gpu == Approx(0.5 * 20000 + 0.5 * 5000));
}

TEST_CASE("Profiles read and write Dynamo's raw_data JSON keys") {
  const auto j = nlohmann::json::parse(R"({"x_kv_usage": [0.1, 0.5], "y_context_length": [3075, 3075],
      "z_itl": [6.5, 9.8], "z_thpt_per_gpu": [3000, 10226.6], "max_kv_tokens": [100000]})");
  const auto d = parse_decode_profile(j);
  REQUIRE(d.ok());
  CHECK(d->max_kv_tokens == 100000);
  const auto back = parse_decode_profile(nlohmann::json(*d));
  REQUIRE(back.ok());
  CHECK(back->itl_ms == d->itl_ms);
  CHECK_FALSE(parse_prefill_profile(nlohmann::json::parse(R"({"prefill_isl": [1]})")).ok());
}
