// A forward-pass sample (policy.hpp) as the forward-pass regression reads it, for every
// policy that folds forward passes into one (the load policy; hybrid's split sizing).
#pragma once

#include <cmath>

#include "domain/model/forward_pass_regression.hpp"
#include "domain/tick/tick_input.hpp"

namespace capstan {

// Every field the regression reads is finite and >= 0.
inline bool regression_fields_valid(const ForwardPassSample& f) {
  for (double v : {f.wall_time_ms, f.scheduled_prefill_tokens, f.decode_kv_tokens, f.running_requests,
                   f.scheduled_prefill_requests}) {
    if (!std::isfinite(v) || v < 0) return false;
  }
  return true;
}

inline IterationReport iteration_report(const ForwardPassSample& f) {
  return {f.wall_time_ms, f.scheduled_prefill_tokens, f.scheduled_prefill_requests, f.decode_kv_tokens,
          f.running_requests};
}

}  // namespace capstan
