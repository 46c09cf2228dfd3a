#include "domain/stages/pd_ratio.hpp"

#include <cmath>
#include <string>

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

// The band's sentence for (prefill, decode), or "" when the band already holds.
std::string adjustment(int prefill, int decode, const RatioBand& band) {
  const PdTargets t = keep_ratio_band(prefill, decode, band);
  if (t.prefill == prefill && t.decode == decode) return "";
  return band_adjustment(prefill, decode, t, band, 0).text();
}

}  // namespace

TEST_CASE("The P:D band raises the lagging role and never lowers one") {
  const RatioBand band{0.5, 2.0};
  auto t = keep_ratio_band(1, 6, band);
  CHECK(t.prefill == 3);
  CHECK(t.decode == 6);
  CHECK(adjustment(1, 6, band) == "prefill:decode 1:6 outside band [0.5, 2]: raise prefill 1 -> 3");
  t = keep_ratio_band(9, 2, band);
  CHECK(t.prefill == 9);
  CHECK(t.decode == 5);
  CHECK(adjustment(9, 2, band) == "prefill:decode 9:2 outside band [0.5, 2]: raise decode 2 -> 5");
  CHECK(adjustment(4, 4, band).empty());
}

TEST_CASE("A one-sided band states its one bound") {
  CHECK(adjustment(1, 4, {0.5, 0}) == "prefill:decode 1:4 outside band [0.5, inf): raise prefill 1 -> 2");
  CHECK(adjustment(5, 1, {0, 2}) == "prefill:decode 5:1 outside band [0, 2]: raise decode 1 -> 3");
  CHECK(adjustment(50, 1, {0.5, 0}).empty());
}

TEST_CASE("A narrow band is met on both sides even when rounding one raise breaks the other bound") {
  // 0.5 x 3 = 1.5 -> prefill 2, which is above 0.6 x 3: decode goes to 4.
  const PdTargets t = keep_ratio_band(1, 3, {0.5, 0.6});
  CHECK(t.prefill == 2);
  CHECK(t.decode == 4);
  CHECK(t.prefill >= 0.5 * t.decode);
  CHECK(t.prefill <= 0.6 * t.decode);
  CHECK(adjustment(1, 3, {0.5, 0.6}) == "prefill:decode 1:3 outside band [0.5, 0.6]: raise prefill 1 -> 2 and decode 3 -> 4");
}

TEST_CASE("Ratios that land on a bound exactly count as inside it") {
  CHECK(adjustment(3, 10, {0.3, 0}).empty());  // 0.3 x 10 is 3.0000000000000004
  CHECK(adjustment(7, 10, {0, 0.7}).empty());
}

TEST_CASE("No prefill is asked for while decode is at zero, and an empty model stays empty") {
  CHECK(adjustment(0, 0, {0.5, 1}).empty());
  const PdTargets t = keep_ratio_band(2, 0, {0.5, 1});  // prefill without decode serves nothing
  CHECK(t.decode == 2);
}

TEST_CASE("An invalid band is reported by validate and changes nothing") {
  CHECK_FALSE(validate(RatioBand{0.5, 1}).has_value());
  CHECK_FALSE(validate(RatioBand{}).has_value());
  const auto inverted = validate(RatioBand{2, 1});
  REQUIRE(inverted.has_value());
  CHECK(inverted->message == "P:D band minimum 2 is above its maximum 1");
  CHECK(validate(RatioBand{-1, 0}).has_value());
  CHECK(validate(RatioBand{std::nan(""), 0}).has_value());
  const PdTargets t = keep_ratio_band(1, 6, {2, 1});
  CHECK(t.prefill == 1);
  CHECK(t.decode == 6);
}
