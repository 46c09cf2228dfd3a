// Keeping a prefill:decode replica ratio inside a configured band (issue 9, "disagg";
// the failure users report is a P:D ratio that drifts as each role scales on its own).
// The band is applied per model by the tick finisher (domain/stages/tick_finisher.hpp), on the
// summed targets of the model's prefill and of its decode variants.
#pragma once

#include <optional>
#include <string>

#include "domain/core/reason.hpp"

#include "domain/core/result.hpp"

namespace capstan {

struct RatioBand {
  double min_prefill_per_decode = 0;  // 0 = no lower bound
  double max_prefill_per_decode = 0;  // 0 = no upper bound

  bool operator==(const RatioBand&) const = default;
};

// Errors (kInvalidArgument) on a negative or non-finite bound, or a minimum above the
// maximum when both are set.
std::optional<Error> validate(const RatioBand& band);

// Whether either bound is set.
bool enabled(const RatioBand& band);

// The band as an interval of prefill per decode: "[0.5, 1]", "[0.5, inf)" or "[0, 2]".
std::string describe(const RatioBand& band);

struct PdTargets {
  int prefill = 0;
  int decode = 0;
};

// Raises the lagging role (never lowers one: capacity is not taken away to fix a
// ratio) until prefill / decode lies within the band. Raising one role to meet one bound
// can break the other by rounding; the raise is repeated until both hold. No prefill
// bound is imposed while decode is 0. An invalid band (validate) changes nothing.
PdTargets keep_ratio_band(int prefill, int decode, const RatioBand& band);

// What the band asked, as figures ("prefill:decode 2:6 outside band [0.5, 1]: raise
// prefill 2 -> 3"); `no_room` replicas of the raise found no room on any variant.
Reason band_adjustment(int prefill, int decode, const PdTargets& targets, const RatioBand& band, int no_room);

}  // namespace capstan
