#include "domain/pd_ratio.hpp"

#include <cmath>

#include "domain/format.hpp"

namespace capstan {

PdTargets keep_ratio_band(int prefill, int decode, const RatioBand& band) {
  PdTargets t{prefill, decode, ""};
  if (band.min_prefill_per_decode > 0 && t.decode > 0 &&
      t.prefill < band.min_prefill_per_decode * t.decode) {
    t.prefill = static_cast<int>(std::ceil(band.min_prefill_per_decode * t.decode - 1e-9));
    t.adjustment = "prefill raised to " + std::to_string(t.prefill) + " to keep P:D >= " +
                   fmt_num(band.min_prefill_per_decode);
  }
  if (band.max_prefill_per_decode > 0 && t.prefill > band.max_prefill_per_decode * t.decode) {
    t.decode = static_cast<int>(std::ceil(t.prefill / band.max_prefill_per_decode - 1e-9));
    t.adjustment = "decode raised to " + std::to_string(t.decode) + " to keep P:D <= " +
                   fmt_num(band.max_prefill_per_decode);
  }
  return t;
}

}  // namespace capstan
