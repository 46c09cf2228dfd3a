// Validation of numeric command-line flags, shared by every subcommand, so that a bad
// value always fails the same way: a UsageError naming the flag and the value. Upper
// bounds (kMaxTokens, kMaxMs, kMaxRate) keep a calculator's arithmetic in range: past
// them it would print 0 or inf as if it were an answer.
#pragma once

#include <cmath>
#include <string>

#include "adapters/cli/usage_error.hpp"
#include "domain/core/format.hpp"

namespace capstan::cli {

inline constexpr double kMaxTokens = 1e7;  // tokens per request
inline constexpr double kMaxMs = 1e9;      // any latency or per-token time, ms
inline constexpr double kMaxRate = 1e9;    // any rate, req/s

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

// lo <= v <= hi (lo < v when lo_open), finite.
inline void require_in(double v, double lo, double hi, const std::string& flag, bool lo_open = false) {
  require_finite(v, flag);
  if (lo_open ? !(v > lo) : !(v >= lo))
    throw UsageError(flag + " must be " + (lo_open ? "> " : ">= ") + fmt_num(lo) + ", got " + fmt_num(v));
  if (v > hi) throw UsageError(flag + " must be <= " + fmt_num(hi) + ", got " + fmt_num(v));
}

}  // namespace capstan::cli
