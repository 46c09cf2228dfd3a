// Validation of numeric command-line flags, shared by every subcommand, so that a bad
// value always fails the same way: a UsageError naming the flag and the value.
#pragma once

#include <cmath>
#include <string>

#include "adapters/cli/usage_error.hpp"
#include "domain/core/format.hpp"

namespace capstan::cli {

inline void require_finite(double v, const std::string& flag) {
  if (!std::isfinite(v)) throw UsageError(flag + " must be a finite number, got " + fmt_num(v));
}

inline void require_positive(double v, const std::string& flag) {
  require_finite(v, flag);
  if (v <= 0) throw UsageError(flag + " must be > 0, got " + fmt_num(v));
}

inline void require_nonnegative(double v, const std::string& flag) {
  require_finite(v, flag);
  if (v < 0) throw UsageError(flag + " must be >= 0, got " + fmt_num(v));
}

inline void require_at_least(double v, double lo, const std::string& flag) {
  require_finite(v, flag);
  if (v < lo) throw UsageError(flag + " must be >= " + fmt_num(lo) + ", got " + fmt_num(v));
}

}  // namespace capstan::cli
