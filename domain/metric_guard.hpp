// Missing or invalid metrics never move a variant down (issue 9, "metrics-gap"; the
// failure users report is scaling to the floor when Prometheus goes away). A variant's
// observation is unusable when replicas are ready but none reported, or a reported
// value is NaN, infinite or negative; then the policy holds its last good target for
// that variant, with the reason saying so, and resumes when data returns.
#pragma once

#include <optional>
#include <string>

#include "domain/decision.hpp"
#include "domain/variant_state.hpp"

namespace capstan {

// Why this variant's metrics cannot be used this tick, or nothing when they can.
std::optional<std::string> unusable_metrics(const VariantState& variant);

// The hold: target = the last good target (or the current count when there is none),
// never below the current count; reason code metrics_missing.
ScalingRequest hold_last_good(const VariantState& variant, std::optional<int> last_good_target,
                              const std::string& why);

}  // namespace capstan
