// Online regression of a forward pass's wall time on the work it scheduled, the perf
// model of Dynamo's load-based loop (seed 001, "Load-Based Scaling" / "Regression
// Models"; ../shared/reference/dynamo.md 3.2): ordinary least squares with intercept of
// wall time on scheduled prefill tokens (1D, prefill engines), on decode KV tokens (1D,
// decode engines) or on both (2D, aggregated engines), over a sliding window of recent
// iterations. From the fit it estimates the next request's TTFT (chunked prefill of the
// queue plus one average prompt) and ITL (one more average decode in the batch), and an
// engine's best request rate at a latency target.
//
// The window is a FIFO of the newest max_samples iterations (Dynamo's earlier G2
// window; the bucketed retirement of later versions is left out). Idle heartbeats
// (wall time 0) are not samples. A fit with a negative slope is not ready, so is one
// with fewer than min_observations samples. Collinear 2D data gives the minimum-norm
// solution, as sklearn's LinearRegression does. State is a plain value with JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

struct RegressionConfig {
  int max_samples = 64;       // Dynamo max_num_fpm_samples
  int min_observations = 5;   // Dynamo load_min_observations
};

// Names the offending field.
std::optional<Error> validate(const RegressionConfig& config);

// One non-idle iteration of one engine.
struct IterationSample {
  double prefill_tokens = 0;     // freshly computed prompt tokens this iteration
  double decode_kv_tokens = 0;   // context of the requests decoding this iteration
  double wall_time_ms = 0;

  bool operator==(const IterationSample&) const = default;
};

// What the regression's features are: Role::kPrefill -> prefill tokens, kDecode ->
// decode KV tokens, kBoth -> both.
struct RegressionState {
  Role role = Role::kBoth;
  std::vector<IterationSample> samples;   // oldest first, at most max_samples
  // Per-request averages over the same window, leading zeros skipped.
  std::vector<double> prompt_tokens;      // prefill tokens per scheduled prefill request
  std::vector<double> decode_length;      // decode KV tokens per decoding request
  std::vector<double> prefill_per_iter;   // prefill tokens per iteration (aggregated ITL)

  bool operator==(const RegressionState&) const = default;
};

// What one iteration reports, as the regression reads it.
struct IterationReport {
  double wall_time_ms = 0;               // 0: idle heartbeat
  double prefill_tokens = 0;
  double prefill_requests = 0;           // 0: unknown, counted as 1 when tokens > 0
  double decode_kv_tokens = 0;
  double decode_requests = 0;
};

// Folds one iteration in. Non-finite or negative fields drop the report.
RegressionState observe(RegressionState state, const IterationReport& report,
                        const RegressionConfig& config);

// wall_time_ms = prefill_ms_per_token * p + decode_ms_per_kv_token * d + intercept_ms.
struct WallTimeFit {
  double prefill_ms_per_token = 0;
  double decode_ms_per_kv_token = 0;
  double intercept_ms = 0;

  // Clamped to >= 1e-3 ms, as Dynamo clamps predictions to >= 1e-6 s.
  double wall_time_ms(double prefill_tokens, double decode_kv_tokens) const;
};

// Empty when not ready: too few samples or a negative slope.
std::optional<WallTimeFit> fit(const RegressionState& state, const RegressionConfig& config);

// Averages over the window (0 when nothing was seen).
double average_prompt_tokens(const RegressionState& state);
double average_decode_length(const RegressionState& state);
double average_prefill_per_iteration(const RegressionState& state);

// Sum of wall times of the chunks of `tokens` of at most max_batched_tokens each,
// evaluated at decode_kv_tokens. 0 for tokens <= 0.
double chunked_prefill_ms(const WallTimeFit& fit, double tokens, double max_batched_tokens,
                          double decode_kv_tokens = 0);

// TTFT of the next request: the queued prompt tokens plus one average prompt, less the
// prefix-cache hits (hit rate clamped to [0, 0.95], NaN as 0), chunked.
double estimate_ttft_ms(const WallTimeFit& fit, double queued_prefill_tokens,
                        double avg_prompt_tokens, double max_batched_tokens,
                        double kv_hit_rate = 0, double decode_kv_tokens = 0);

// ITL with one more average request decoding: wall time at
// (prefill_tokens, scheduled + queued + average decode length).
double estimate_itl_ms(const WallTimeFit& fit, double scheduled_kv_tokens, double queued_kv_tokens,
                       double avg_decode_length, double prefill_tokens = 0);

struct EngineRate {
  double rps = 0;          // requests per second one engine sustains
  double latency_ms = 0;   // its TTFT (prefill) or ITL (decode) at that rate
  int batch = 0;           // decode: concurrent requests
};

// A prefill engine serves one prompt of input_tokens after another: rps = 1 / TTFT.
EngineRate prefill_engine_rate(const WallTimeFit& fit, double input_tokens,
                               double max_batched_tokens);

// The largest batch b in [1, max_batch] whose ITL at b x context_tokens meets the
// target (b = 1 when none does); rps = b / (output_tokens x ITL), Little's law.
EngineRate decode_engine_rate(const WallTimeFit& fit, double itl_target_ms, double context_tokens,
                              double output_tokens, int max_batch);

// ---- The recorded form of a RegressionState (state schema 4) ----
//
// Most of a saved state's bytes (issue 19: a variant's state within 2 KiB) are the
// window's, and most decode lengths are a sample's decode KV tokens divided by a count
// of requests; prefill_per_iter is mostly the samples' prefill column. So the record
// keeps the samples by column, with that count as a fourth, and of those two series
// only what the samples do not give. Decode KV tokens grow by about one per decoding
// request from one iteration to the next, so they are kept as those steps (a byte
// each, where a count of thousands takes three) when the steps give them back exactly:
//   {"role": "both",
//    "sample_columns": [[prefill_tokens...], [decode_kv_tokens...], [wall_time_ms...],
//                       [decode_requests...]],   decode_kv_tokens / decode_requests is
//                                                the sample's decode length, 0: none
//    "decode_kv_steps": true: the decode_kv_tokens column holds each sample's less the
//                       one before it (the first's less 0),
//    "decode_length": [the values older than the samples'],
//    "prefill_per_iter": [the values older than the samples'],
//    "prefill_per_iter_from": k, the sample whose prefill tokens are the next values,
//    "prompt_tokens": [...]}
// The writer derives the steps, the counts and k from the state such that the reader
// rebuilds every double bit for bit (record_of). Schema 3's record, "samples" as
// [prefill_tokens, decode_kv_tokens, wall_time_ms] per sample and every series in full,
// is read too.
struct RegressionRecord {
  bool decode_kv_steps = false;
  std::vector<double> decode_kv_column;           // the steps, or the samples' values
  std::vector<std::uint64_t> decode_requests;     // one per sample
  std::vector<double> decode_length_before;       // the values older than the samples'
  std::vector<double> prefill_per_iter_before;
  std::size_t prefill_per_iter_from = 0;
};

RegressionRecord record_of(const RegressionState& state);
// The samples' decode KV tokens and the two series rebuilt from the samples (their
// other columns) and a record; an Error names the field at fault.
Result<RegressionState> from_record(RegressionState with_samples, const RegressionRecord& record);

void to_json(nlohmann::json& j, const RegressionConfig& c);
void from_json(const nlohmann::json& j, RegressionConfig& c);
void to_json(nlohmann::json& j, const IterationSample& s);
void from_json(const nlohmann::json& j, IterationSample& s);
void to_json(nlohmann::json& j, const RegressionState& s);
void from_json(const nlohmann::json& j, RegressionState& s);
void to_json(nlohmann::json& j, const WallTimeFit& f);

}  // namespace capstan
