// The calibrated cost of one forward pass (one scheduler iteration) of a
// continuous-batching server, per (model, GPU, tensor-parallel degree):
//
//   iteration_ms = overhead_ms
//                + compute_ms_per_token      * scheduled tokens (prefill chunks + decodes)
//                + kv_read_ms_per_token      * KV tokens read by the decoding requests
//                + prefill_attention_ms_per_token2 * sum over prefill chunks of
//                                               chunk * (cached context + chunk)
//
// times a multiplicative noise factor drawn per iteration (mean 1, sd noise_cv).
// The first three terms are the (alpha, beta, gamma) form the analyzers learn; the
// quadratic prefill-attention term is there because the measurements need it
// (reference/simulator-calibration.md, sections 5.3 and 6), and it gives the
// policies an honest model mismatch. Coefficients: sim/profiles/*.yaml, fit: sim/README.md.
#pragma once

#include <string>

#include "domain/core/result.hpp"
#include "sim/rng.hpp"

namespace capstan::sim {

struct HardwareProfile {
  std::string name;    // e.g. "llama2-70b-h100-tp4"
  std::string model;   // e.g. "meta-llama/Llama-2-70b-hf"
  std::string gpu;     // e.g. "H100-80GB"
  int tensor_parallel = 1;
  double overhead_ms = 0;
  double compute_ms_per_token = 0;
  double kv_read_ms_per_token = 0;
  double prefill_attention_ms_per_token2 = 0;
  double noise_cv = 0;  // sd of the multiplicative noise; 0 = deterministic
  // Calibration quality as measured when the profile was fitted (documentation only).
  double fit_mape = 0;
  double fit_max_rel_error = 0;
};

// What one iteration does, in the units of the cost model.
struct IterationWork {
  long long scheduled_tokens = 0;     // prefill-chunk tokens + one per decoding request
  long long prefill_tokens = 0;       // the prefill part of scheduled_tokens
  long long decode_kv_tokens = 0;     // context length summed over decoding requests
  double prefill_attention_token2 = 0;  // sum of chunk * (context before chunk + chunk)
};

// Expected iteration time without noise.
double expected_iteration_ms(const HardwareProfile& profile, const IterationWork& work);

// One noisy draw: expected time times max(0.5, 1 + noise_cv * N(0, 1)).
double sample_iteration_ms(const HardwareProfile& profile, const IterationWork& work, Rng& rng);

// Reads one profile file (sim/profiles/<name>.yaml); errors name the file and key.
Result<HardwareProfile> load_profile(const std::string& path);

}  // namespace capstan::sim
