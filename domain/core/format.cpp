#include "domain/core/format.hpp"

#include <cmath>
#include <cstdio>

namespace capstan {

std::string fmt_num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace capstan
