// Reproducible noise for predictor tests: a fixed 64-bit LCG (Knuth's MMIX constants)
// and Box-Muller, so generated series are the same on every run and machine.
#pragma once

#include <cmath>
#include <cstdint>

namespace capstan::testing {

class LcgNoise {
 public:
  explicit LcgNoise(std::uint64_t seed) : x_(seed) {}

  // Uniform in (0, 1).
  double uniform() {
    x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(x_ >> 11) + 0.5) * 0x1.0p-53;
  }

  // Standard normal.
  double gaussian() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t x_;
};

}  // namespace capstan::testing
