#include "domain/core/format.hpp"

#include <charconv>
#include <cmath>

namespace capstan {

std::string fmt_num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // to_chars in the general format is printf's "%.6g" in the "C" locale, character for
  // character, at a fraction of snprintf's cost (every reason renders several numbers).
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6).ptr;
  return std::string(buf, end);
}

}  // namespace capstan
