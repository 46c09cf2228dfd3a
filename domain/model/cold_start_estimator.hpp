// A variant's cold start learned from its own replicas (issue 9: "the forecast horizon
// is the cold start measured from the fleet's own replica start-up times"). Robust to
// a few slow or fast starts: the estimate is a high quantile (P90 by default) of the
// most recent start-up times, with the configured value standing in as one sample
// until enough starts have been seen.
#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace capstan {

struct ColdStartConfig {
  int window = 20;          // most recent samples kept
  int min_samples = 3;      // below this the configured prior is one of the samples
  double quantile = 0.9;
};

struct ColdStartState {
  double prior_s = 0;             // configured cold start
  std::vector<double> samples_s;  // most recent first-ready times, oldest first

  bool operator==(const ColdStartState&) const = default;
};

// Non-finite or negative samples are ignored.
ColdStartState observe_cold_start(ColdStartState state, double sample_s, const ColdStartConfig& config);
double cold_start_estimate_s(const ColdStartState& state, const ColdStartConfig& config);

void to_json(nlohmann::json& j, const ColdStartState& s);
void from_json(const nlohmann::json& j, ColdStartState& s);

}  // namespace capstan
