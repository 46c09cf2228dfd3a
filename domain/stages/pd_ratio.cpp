#include "domain/stages/pd_ratio.hpp"

#include <cmath>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

// Ratios are compared with a little slack, so that 0.3 x 10 counts as 3.
constexpr double kSlack = 1e-9;
// A valid band settles in two or three rounds; the cap only bounds the loop.
constexpr int kMaxRounds = 64;

int at_least(double x) { return static_cast<int>(std::ceil(x - kSlack)); }

}  // namespace

std::optional<Error> validate(const RatioBand& b) {
  for (double bound : {b.min_prefill_per_decode, b.max_prefill_per_decode}) {
    if (!std::isfinite(bound) || bound < 0) {
      return invalid_argument("P:D band bounds must be finite and >= 0, got " + fmt_num(b.min_prefill_per_decode) +
                              " - " + fmt_num(b.max_prefill_per_decode));
    }
  }
  if (b.min_prefill_per_decode > 0 && b.max_prefill_per_decode > 0 &&
      b.min_prefill_per_decode > b.max_prefill_per_decode) {
    return invalid_argument("P:D band minimum " + fmt_num(b.min_prefill_per_decode) + " is above its maximum " +
                            fmt_num(b.max_prefill_per_decode));
  }
  return std::nullopt;
}

bool enabled(const RatioBand& b) { return b.min_prefill_per_decode > 0 || b.max_prefill_per_decode > 0; }

std::string describe(const RatioBand& b) {
  const std::string hi = b.max_prefill_per_decode > 0 ? fmt_num(b.max_prefill_per_decode) + "]" : "inf)";
  return "[" + fmt_num(b.min_prefill_per_decode) + ", " + hi;
}

PdTargets keep_ratio_band(int prefill, int decode, const RatioBand& band) {
  PdTargets t{prefill, decode};
  if (!enabled(band) || validate(band)) return t;
  const double lo = band.min_prefill_per_decode, hi = band.max_prefill_per_decode;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    if (lo > 0 && t.decode > 0 && t.prefill < lo * t.decode - kSlack) {
      t.prefill = at_least(lo * t.decode);
      changed = true;
    }
    if (hi > 0 && t.prefill > hi * t.decode + kSlack) {
      t.decode = at_least(t.prefill / hi);
      changed = true;
    }
    if (!changed) break;
  }
  return t;
}

Reason band_adjustment(int prefill, int decode, const PdTargets& t, const RatioBand& band, int no_room) {
  return make_reason(ReasonCode::kPdBand, "band.adjustment",
                     {{"prefill", prefill},
                      {"decode", decode},
                      {"prefill_target", t.prefill},
                      {"decode_target", t.decode},
                      {"min_prefill_per_decode", band.min_prefill_per_decode},
                      {"max_prefill_per_decode", band.max_prefill_per_decode},
                      {"no_room", no_room}});
}

}  // namespace capstan
