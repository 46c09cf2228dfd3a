#include "domain/model/slo_targets.hpp"

#include <cmath>

#include "domain/core/format.hpp"

namespace capstan {

std::optional<Error> validate(const SloTargets& t) {
  if (!std::isfinite(t.ttft_ms) || t.ttft_ms < 0) {
    return invalid_argument("target TTFT must be a finite number >= 0 ms (0: not constrained), got " +
                            fmt_num(t.ttft_ms));
  }
  if (!std::isfinite(t.itl_ms) || t.itl_ms < 0) {
    return invalid_argument("target ITL must be a finite number >= 0 ms (0: not constrained), got " +
                            fmt_num(t.itl_ms));
  }
  return std::nullopt;
}

std::optional<Error> validate_explicit(const SloTargets& t) {
  if (auto err = validate(t)) return err;
  if (!t.is_explicit()) {
    return invalid_argument("an explicit SLO needs a TTFT or an ITL target > 0 ms, got TTFT 0 and ITL 0");
  }
  return std::nullopt;
}

std::string describe(const SloTargets& t) {
  const std::string ttft = t.constrains_ttft() ? "TTFT " + fmt_num(t.ttft_ms) + " ms" : "no TTFT target";
  const std::string itl = t.constrains_itl() ? "ITL " + fmt_num(t.itl_ms) + " ms" : "no ITL target";
  return ttft + " / " + itl;
}

}  // namespace capstan
