// Fits the cost model's coefficients (cost_model.hpp) to measured iteration times and
// reports the fit's error. The measurements are splitwise-sim's perf_model.csv
// (Patel et al., ISCA 2024; MIT, (c) 2024 Pratyush Patel): static-batch prefill times
// and per-token decode times of llama2-70b on A100-80GB and H100-80GB. How the rows
// map onto iterations, and which rows are left out, is documented in sim/README.md.
#pragma once

#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "sim/cost_model.hpp"

namespace capstan::sim {

struct CalibrationPoint {
  std::string label;  // e.g. "prefill P=2048 B=1"
  IterationWork work;
  double measured_ms = 0;  // median over the repetitions
};

struct FitError {
  double mape = 0;           // mean |predicted - measured| / measured
  double max_rel_error = 0;
  std::string worst_label;
};

// Median prefill and decode iteration times for one (model, hardware, TP) from a
// splitwise perf_model.csv. Prefill rows with batch > 1 are skipped (a static padded
// batch, unlike a chunked-prefill engine); decode rows are used at every batch size.
Result<std::vector<CalibrationPoint>> read_splitwise_points(const std::string& path,
                                                            const std::string& model,
                                                            const std::string& hardware,
                                                            int tensor_parallel);

// Least squares on relative error for the four coefficients (overhead, per token,
// per KV token, per prefill-attention token^2); other fields of `base` are kept.
Result<HardwareProfile> fit_profile(const std::vector<CalibrationPoint>& points,
                                    HardwareProfile base);

FitError fit_error(const HardwareProfile& profile, const std::vector<CalibrationPoint>& points);

}  // namespace capstan::sim
