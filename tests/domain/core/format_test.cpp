#include "domain/core/format.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

namespace capstan {
namespace {

// printf's "%.6g", as fmt_num has always written every finite number.
std::string general6(double v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6).ptr);
}

}  // namespace

TEST_CASE("fmt_num writes every whole number of up to six digits as %.6g does, character for character") {
  for (long i = -1'000'001; i <= 1'000'001; ++i) {
    const double v = static_cast<double>(i);
    if (fmt_num(v) != general6(v)) FAIL("differs at " << i << ": " << fmt_num(v) << " vs " << general6(v));
  }
  CHECK(fmt_num(0.0) == "0");
  CHECK(fmt_num(-0.0) == "-0");
  CHECK(fmt_num(999999.0) == "999999");
  CHECK(fmt_num(1e6) == "1e+06");
  CHECK(fmt_num(-42.0) == "-42");
}

TEST_CASE("fmt_num writes fractions, large numbers and the non-finite as before") {
  for (double v : {0.5, -0.25, 1.0 / 3, 2.5e-7, 123456.5, 999999.5, 1234567.0, -9.87654321e12, 1e300,
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max()}) {
    INFO(v);
    CHECK(fmt_num(v) == general6(v));
  }
  CHECK(fmt_num(std::nan("")) == "NaN");
  CHECK(fmt_num(INFINITY) == "inf");
  CHECK(fmt_num(-INFINITY) == "-inf");
}

}  // namespace capstan
