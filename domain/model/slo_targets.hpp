// The latency targets of a service level objective: what a model is sized against, what
// a policy compares observed latency with, and what the simulator judges a request by.
// One type for the domain, the policies and the simulator.
//
// Contract: each target is a finite number >= 0 ms, and 0 means that metric is not
// constrained (it never binds a sizing, never triggers a scale-up, and every request
// meets it). An explicit SLO has at least one target > 0. Both 0 asks for the targets
// to be derived where a policy can (slo.hpp, resolution paths 2 and 3); where it
// cannot, it constrains nothing.
#pragma once

#include <limits>
#include <optional>
#include <string>

#include "domain/core/result.hpp"

namespace capstan {

struct SloTargets {
  double ttft_ms = 0;  // time to first token
  double itl_ms = 0;   // inter-token latency (the simulator: a request's mean ITL)

  bool operator==(const SloTargets&) const = default;

  bool constrains_ttft() const { return ttft_ms > 0; }
  bool constrains_itl() const { return itl_ms > 0; }
  bool is_explicit() const { return constrains_ttft() || constrains_itl(); }

  // The target as an upper bound a search may use: +infinity when not constrained.
  double ttft_bound_ms() const { return constrains_ttft() ? ttft_ms : kUnbounded; }
  double itl_bound_ms() const { return constrains_itl() ? itl_ms : kUnbounded; }

 private:
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();
};

// Each target finite and >= 0; names the offending one ("target TTFT must be ..., got -5").
std::optional<Error> validate(const SloTargets& targets);

// validate(), and at least one target > 0: an SLO given by a user rather than derived.
std::optional<Error> validate_explicit(const SloTargets& targets);

// "TTFT 2000 ms / ITL 100 ms"; an unconstrained metric reads "no TTFT target".
std::string describe(const SloTargets& targets);

}  // namespace capstan
