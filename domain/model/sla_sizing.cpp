#include "domain/model/sla_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace capstan {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool positive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

double kv_usage_at(double concurrency_per_replica, double context_tokens, double max_kv_tokens) {
  if (!positive(max_kv_tokens)) return 0;
  return concurrency_per_replica * context_tokens / max_kv_tokens;
}

double prefill_correction(const PrefillProfile& p, double observed_ttft_ms,
                          double observed_input_tokens) {
  if (!positive(observed_ttft_ms) || !positive(observed_input_tokens)) return kNaN;
  return observed_ttft_ms / prefill_ttft_ms(p, observed_input_tokens);
}

double decode_correction(const DecodeProfile& p, double observed_itl_ms,
                         double concurrency_per_replica, double context_tokens) {
  if (!positive(observed_itl_ms) || !positive(concurrency_per_replica) || !positive(context_tokens)) {
    return kNaN;
  }
  const double usage = kv_usage_at(concurrency_per_replica, context_tokens, p.max_kv_tokens);
  return observed_itl_ms / decode_itl_ms(p, usage, context_tokens);
}

double prefill_replica_rps(const PrefillProfile& p, double input_tokens, int gpus_per_replica,
                           double correction) {
  if (!positive(input_tokens)) return 0;
  const double c = positive(correction) ? std::min(1.0, correction) : 1.0;
  return prefill_tokens_per_s_per_gpu(p, input_tokens) * gpus_per_replica / (input_tokens * c);
}

double decode_replica_rps(const DecodeProfile& p, double itl_target_ms, double input_tokens,
                          double output_tokens, int gpus_per_replica, double correction) {
  if (!positive(output_tokens)) return 0;
  const double target = positive(correction) ? itl_target_ms / correction : itl_target_ms;
  const DecodeOperatingPoint best =
      best_decode_point(p, target, decode_context_tokens(std::max(0.0, input_tokens), output_tokens));
  return best.tokens_per_s_per_gpu * gpus_per_replica / output_tokens;
}

double time_shared_rps(double prefill_rps, double decode_rps) {
  if (!positive(prefill_rps) || !positive(decode_rps)) return 0;
  return 1.0 / (1.0 / prefill_rps + 1.0 / decode_rps);
}

int replicas_for(double demand_rps, double per_replica_rps) {
  if (!positive(demand_rps) || !positive(per_replica_rps)) return 0;
  const double ratio = demand_rps / per_replica_rps;
  if (ratio > 1e6) return 1'000'000;
  return static_cast<int>(std::ceil(ratio * (1 - 1e-9)));
}

}  // namespace capstan
