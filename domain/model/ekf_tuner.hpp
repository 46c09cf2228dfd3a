// Online learning of a variant's queue-model parameters (alpha, beta, gamma) with an
// extended Kalman filter, as WVA's tuner does (seed 000 sections 5-6, 9.3;
// ../shared/reference/wva.md "Tuner"): identity transition, process noise proportional
// to the state, measurement noise proportional to the observation, the queue model as
// observation function, and an NIS gate that rejects outliers and keeps the previous
// state. The state is a plain value so it can be persisted and restored bit for bit.
//
// Two departures from WVA, both for robustness when the first observation is taken
// under load: the filter runs on log(alpha, beta, gamma) and log(TTFT, ITL), which is
// WVA's proportional noise model made exact (and keeps parameters positive); and when
// the current parameters cannot carry the observed rate at all, they are first rescaled
// along their ray to match the observed ITL (project_onto_rate in the .cpp) instead of
// rejecting every such observation forever.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

struct TunerConfig {
  // Expected drift per cycle (std of log x). Parameters are properties of the hardware and
  // barely move; 0.02 converges on more seeds than 0.05 (bench: 49 vs 46 of 50).
  std::array<double, 3> percent_change{0.02, 0.02, 0.02};
  double initial_spread = 1.0;   // std of log(initial guess): a factor e either way
  // Student-t based observation error level. WVA uses 0.05, i.e. a 2.6% standard error;
  // averages over a 15-30 s window scatter by about 5%, at which 0.05 rejects most valid
  // updates as outliers, so capstan defaults to 0.1 (5.1%).
  double error_level = 0.1;
  double t_percentile = 1.96;
  double gamma_factor = 1.0;
  double max_nis = 7.378;        // chi-square, 2 dof, 95%
  // An isolated outlier is rejected; a run of rejections means the estimate itself is
  // wrong and the gate has locked it in, so the covariance is re-opened to
  // initial_spread before the next update.
  int reopen_after_rejections = 3;
  // Bounds x0 / f .. x0 * f around the starting point. A bootstrap taken under load can
  // be off by more than 10x in gamma, and a clamped filter turns overconfident.
  double bound_factor = 100;
  int queue_to_batch_ratio = 10; // the tuner's queue: Q = 10 N
  double base_factor = 0.9;      // bootstrap alpha = 0.9 x ITL
  // The bootstrap spreads the ITL's load part over the batch the pods run, not a batch
  // of one (TunerObservation::batch). Off by default, as WVA; `hybrid` sets it.
  bool bootstrap_at_batch = false;
  double transient_delay_s = 120;
};

inline constexpr ServiceParams kDefaultParams{5.0, 0.05, 0.00005};

enum class TunerSource { kBootstrap, kDefault, kEkf };
const char* to_string(TunerSource source);

// Filter state: parameters, the error covariance of their logarithms (row-major 3x3,
// i.e. relative errors), and bounds.
struct TunerState {
  ServiceParams params;
  std::array<double, 9> covariance{};
  ServiceParams min_params;
  ServiceParams max_params;
  long accepted_updates = 0;
  long rejected_updates = 0;
  int consecutive_rejections = 0;

  bool operator==(const TunerState&) const = default;
};

// One observation of a variant's aggregated workload.
struct TunerObservation {
  double ttft_ms = 0;
  double itl_ms = 0;
  double input_tokens = 0;
  double output_tokens = 0;
  double arrival_rate_rps = 0;
  int max_batch_size = 256;
  double batch = 1;  // requests running per busy pod: the bootstrap spreads the ITL's load part over them
};

// Names the first invalid field ("ttft_ms must be a finite number > 0, got -3").
std::optional<Error> validate(const TunerObservation& obs);

// Seed 000 section 9.3 under the light-load assumption T_iter = alpha:
//   alpha = 0.9 ITL; beta + gamma = (TTFT - alpha) / in;
//   gamma = ((ITL - alpha) - (beta + gamma)) / (in + (out + 1) / 2 - 1); beta = (beta + gamma) - gamma.
// Errors when any value is not > 0 (the caller then starts from kDefaultParams).
Result<ServiceParams> bootstrap_params(const TunerObservation& obs, double base_factor);

struct TunerStart {
  TunerState state;
  TunerSource source;  // kBootstrap or kDefault
};

// The filter's starting point for a variant with nothing stored.
TunerStart initial_state(const TunerObservation& obs, const TunerConfig& config);

// The tuner's observation function: the queue model's (TTFT without the first decode
// step, ITL) at the observed rate, token lengths and batch size, with Q = ratio x N.
Result<std::array<double, 2>> predict_observation(const ServiceParams& params,
                                                  const TunerObservation& obs,
                                                  int queue_to_batch_ratio);

struct TunerStep {
  TunerState state;      // the updated state, or the previous one when rejected
  double nis = 0;
  bool accepted = false;
  std::string reason;    // why an update was rejected; empty when accepted
};

// One predict + update cycle. Errors only for an invalid observation or config; a
// rejected update (NIS gate, non-positive parameters, model error) is a TunerStep with
// accepted = false and the previous state.
Result<TunerStep> tune_step(const TunerState& state, const TunerObservation& obs,
                            const TunerConfig& config);

}  // namespace capstan
