#include "domain/core/format.hpp"

#include <charconv>
#include <cmath>

namespace capstan {

std::string fmt_num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // A whole number of at most six digits (a count, or a figure a reason rounds, "{x:r}")
  // prints as its digits under "%.6g": written here without to_chars' shortest-digits
  // search, which was most of a rendered reason's cost. -0 is left to to_chars ("-0").
  if (std::fabs(v) < 1e6 && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    char buf[8];
    char* end = buf + sizeof buf;
    char* begin = end;
    auto n = static_cast<long>(std::fabs(v));
    do {
      *--begin = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    if (v < 0) *--begin = '-';
    return std::string(begin, end);
  }
  // to_chars in the general format is printf's "%.6g" in the "C" locale, character for
  // character, at a fraction of snprintf's cost (every reason renders several numbers).
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6).ptr;
  return std::string(buf, end);
}

}  // namespace capstan
