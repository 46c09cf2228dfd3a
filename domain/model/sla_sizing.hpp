// The SLA planner's arithmetic (seed 003, "scaling algorithm"; ../shared/reference/dynamo.md
// 2.2): correction factors that compare observed latency with what the profile expects,
// and one replica's capacity at the SLO in requests per second, from which the replica
// count for a predicted load follows.
//
// Prefill: the correction factor c_p = observed TTFT / profiled TTFT at the observed
// prompt length scales the prefill load by min(1, c_p): prefill runs one request at a
// time, so a faster-than-profiled engine needs proportionally less, while a slower TTFT
// is queueing that more replicas fix, not a slower engine. Decode: c_d = observed ITL /
// profiled ITL at the observed concurrency tightens (c_d > 1) or relaxes (c_d < 1) the
// ITL target the profile is searched with. A factor that cannot be computed is NaN and
// leaves the target alone.
#pragma once

#include "domain/model/perf_model.hpp"

namespace capstan {

// concurrency x context / max_kv_tokens: where a decode engine sits on the profile.
double kv_usage_at(double concurrency_per_replica, double context_tokens, double max_kv_tokens);

// Decode requests carry on average half their output as context: ISL + OSL / 2.
inline double decode_context_tokens(double input_tokens, double output_tokens) {
  return input_tokens + output_tokens / 2;
}

// NaN when an input is missing (<= 0 or not finite).
double prefill_correction(const PrefillProfile& p, double observed_ttft_ms,
                          double observed_input_tokens);
double decode_correction(const DecodeProfile& p, double observed_itl_ms,
                         double concurrency_per_replica, double context_tokens);

// thpt(ISL) x gpus / (ISL x min(1, c_p)); 0 when input_tokens <= 0.
double prefill_replica_rps(const PrefillProfile& p, double input_tokens, int gpus_per_replica,
                           double correction);

// best throughput at (ITL target / c_d, ISL + OSL / 2) x gpus / OSL; 0 when OSL <= 0.
double decode_replica_rps(const DecodeProfile& p, double itl_target_ms, double input_tokens,
                          double output_tokens, int gpus_per_replica, double correction);

// A replica that serves both phases splits its time between them.
double time_shared_rps(double prefill_rps, double decode_rps);

// ceil(demand / per replica), with a relative slack of 1e-9 so that a load exactly at
// capacity does not round up; 0 when demand <= 0. per_replica_rps must be > 0.
int replicas_for(double demand_rps, double per_replica_rps);

}  // namespace capstan
