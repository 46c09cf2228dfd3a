// Keeping a prefill:decode replica ratio inside a configured band (issue 9, "disagg";
// the failure users report is a P:D ratio that drifts as each role scales on its own).
#pragma once

#include <string>

namespace capstan {

struct RatioBand {
  double min_prefill_per_decode = 0;  // 0 = no lower bound
  double max_prefill_per_decode = 0;  // 0 = no upper bound
};

struct PdTargets {
  int prefill = 0;
  int decode = 0;
  std::string adjustment;  // empty when the band already held
};

// Raises the lagging role (never lowers one: capacity is not taken away to fix a
// ratio) until prefill / decode lies within the band.
PdTargets keep_ratio_band(int prefill, int decode, const RatioBand& band);

}  // namespace capstan
