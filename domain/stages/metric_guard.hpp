// Missing, invalid or stale metrics never move a variant down (issue 9, "metrics-gap";
// the failure users report is scaling to the floor when Prometheus goes away). A
// variant's observation is unusable when replicas are ready but none reported, a
// reported value is NaN, infinite or negative, or -- when the caller gives a maximum
// sample age -- even the newest sample of its pods is older than that (a frozen scrape:
// the values look fine but describe the past). Then the policy holds its last good
// target for that variant, with the reason saying so, and resumes when data returns.
#pragma once

#include <optional>
#include <string>

#include "domain/core/decision.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

// The sample age past which a variant's metrics are stale, for a tick interval: a
// sample is normally at most one interval old (taken within the window the tick
// reads); older than two means a whole window went by without a new one.
double max_sample_age_s(double interval_s);

// Why this variant's metrics cannot be used this tick, or nothing when they can. This
// overload does not judge sample age (no threshold is known).
std::optional<Reason> unusable_metrics(const VariantState& variant);

// The same, and stale when the newest sample of the variant's ready pods is older than
// max_sample_age_s (e.g. max_sample_age_s(TickInput::interval_s)); <= 0 or not finite
// disables the age rule.
std::optional<Reason> unusable_metrics(const VariantState& variant, double max_sample_age_s);

// The hold: target = the last good target (or the current count when there is none),
// never below the current count; reason code metrics_missing.
ScalingRequest hold_last_good(const VariantState& variant, std::optional<int> last_good_target, Reason why);

}  // namespace capstan
