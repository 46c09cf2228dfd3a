// A variant's performance model from pre-deployment profiling, as Dynamo's SLA planner
// reads it (seed 001, "Performance Interpolation"; seed 003; ../shared/reference/dynamo.md
// 2.3): prefill maps the prompt length to TTFT and to throughput per GPU; decode maps
// (KV-cache usage, context length) to ITL and to throughput per GPU. The JSON keys are
// those of Dynamo's prefill_raw_data.json / decode_raw_data.json.
//
// Interpolation is piecewise linear, clamped to the sampled range (no extrapolation).
// Dynamo uses a cubic spline for prefill and Clough-Tocher cubic on a 100 x 100 grid for
// decode; on the profiler's sweeps the difference is within the profiling noise, and
// linear interpolation cannot overshoot between samples (a cubic can make ITL fall as
// load grows). Decode samples are grouped by context length; a query between two
// sampled lengths blends the two neighbouring curves linearly.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan {

struct PrefillProfile {
  std::vector<double> input_tokens;          // prefill_isl, ascending
  std::vector<double> ttft_ms;               // prefill_ttft
  std::vector<double> tokens_per_s_per_gpu;  // prefill_thpt_per_gpu
};

struct DecodeProfile {
  // Sorted by context length, then KV usage.
  std::vector<double> kv_usage;              // x_kv_usage, fraction 0..1
  std::vector<double> context_tokens;        // y_context_length
  std::vector<double> itl_ms;                // z_itl
  std::vector<double> tokens_per_s_per_gpu;  // z_thpt_per_gpu
  double max_kv_tokens = 0;                  // KV-cache capacity of one engine, tokens
};

// Sort the samples and check them: equal, non-empty lengths; finite values; positive
// throughput, TTFT, ITL and prompt lengths; max_kv_tokens > 0. Errors name the field.
Result<PrefillProfile> make_prefill_profile(PrefillProfile raw);
Result<DecodeProfile> make_decode_profile(DecodeProfile raw);

double prefill_ttft_ms(const PrefillProfile& p, double input_tokens);
double prefill_tokens_per_s_per_gpu(const PrefillProfile& p, double input_tokens);

// ITL of one engine at this KV usage and context length.
double decode_itl_ms(const DecodeProfile& p, double kv_usage, double context_tokens);

struct DecodeOperatingPoint {
  double tokens_per_s_per_gpu = 0;
  double itl_ms = 0;
  double kv_usage = 0;
};

// The highest-throughput point meeting the ITL target at this context length: on each
// sampled curve, the highest KV usage whose ITL is within the target (searched from the
// top, since measured ITL need not be monotonic); the lowest sample when none is.
DecodeOperatingPoint best_decode_point(const DecodeProfile& p, double itl_target_ms,
                                       double context_tokens);

// Dynamo's key names. from_json validates (throws std::invalid_argument with the
// validation message); parse_* return errors as values.
void to_json(nlohmann::json& j, const PrefillProfile& p);
void from_json(const nlohmann::json& j, PrefillProfile& p);
void to_json(nlohmann::json& j, const DecodeProfile& p);
void from_json(const nlohmann::json& j, DecodeProfile& p);
Result<PrefillProfile> parse_prefill_profile(const nlohmann::json& j);
Result<DecodeProfile> parse_decode_profile(const nlohmann::json& j);

}  // namespace capstan
