#include "domain/model/slo.hpp"

#include <vector>

#include <catch2/catch.hpp>

using namespace capstan;

TEST_CASE("Explicit targets win over everything else") {
  const std::vector<VariantSloInput> v{{ServiceParams{5, 0.05, 5e-5}, 512, 128, 100, 10}};
  auto r = resolve_slo({3.0, 500, 50}, v);
  REQUIRE(r.ok());
  CHECK(r->path == SloPath::kExplicit);
  CHECK(r->targets.ttft_ms == 500);
  CHECK(r->targets.itl_ms == 50);
}

TEST_CASE("Derived targets follow the k x alpha formulas of seed 000") {
  const ServiceParams p{5, 0.05, 5e-5};
  const std::vector<VariantSloInput> v{{p, 512, 128, 100, 10}};
  auto r = resolve_slo({3.0, 0, 0}, v);
  REQUIRE(r.ok());
  CHECK(r->path == SloPath::kDerived);
  CHECK(r->targets.ttft_ms == Approx(3 * 5 + (0.05 + 5e-5) * 512));
  CHECK(r->targets.itl_ms == Approx(3 * 5 + 0.05 + 5e-5 * (512 + 129 / 2.0)));
}

TEST_CASE("Derived targets take the maximum across variants") {
  const std::vector<VariantSloInput> v{{ServiceParams{5, 0.05, 5e-5}, 512, 128, 0, 0},
                                       {ServiceParams{9, 0.01, 5e-5}, 512, 128, 0, 0},
                                       {std::nullopt, 512, 128, 900, 90}};
  auto r = resolve_slo({2.0, 0, 0}, v);
  REQUIRE(r.ok());
  CHECK(r->targets.ttft_ms == Approx(2 * 5 + 0.05005 * 512));  // 35.6 > 23.1
  CHECK(r->targets.itl_ms == Approx(2 * 9 + 0.01 + 5e-5 * (512 + 64.5)));
}

TEST_CASE("Without parameters the observed latency x 1.5 applies, capped") {
  const std::vector<VariantSloInput> v{{std::nullopt, 512, 128, 200, 400}};
  auto r = resolve_slo({3.0, 0, 0}, v);
  REQUIRE(r.ok());
  CHECK(r->path == SloPath::kObserved);
  CHECK(r->targets.ttft_ms == 300);
  CHECK(r->targets.itl_ms == 500);  // 600 capped
  const std::vector<VariantSloInput> slow{{std::nullopt, 512, 128, 9000, 10}};
  CHECK(resolve_slo({3.0, 0, 0}, slow)->targets.ttft_ms == 10000);
}

TEST_CASE("k <= 1 and a lone explicit target are rejected with the field named") {
  CHECK_THAT(validate(SloConfig{1.0, 0, 0})->message, Catch::Contains("sloMultiplier must be > 1.0, got 1"));
  CHECK_THAT(validate(SloConfig{3.0, 500, 0})->message, Catch::Contains("both"));
  CHECK_THAT(validate(SloConfig{3.0, -5, -5})->message, Catch::Contains("targetTTFT"));
  CHECK_FALSE(validate(SloConfig{3.0, 500, 50}).has_value());
}

TEST_CASE("No explicit target, parameter or observation is an error, not a guess") {
  const std::vector<VariantSloInput> v{{std::nullopt, 512, 128, 0, 0}};
  auto r = resolve_slo({3.0, 0, 0}, v);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kNoData);
}
