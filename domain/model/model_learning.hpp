// What the forecasting policies (`hybrid`, `erlang`) learn about a model at each tick,
// in one place: every variant's (alpha, beta, gamma) through the queueing analyzer's
// EKF tuner, every variant's cold start from its own replicas, and the model's demand
// as observed this tick (router arrivals, token lengths, waiting requests). The learned
// values are a plain LearnedModels value the policy keeps and persists.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/model/cold_start_estimator.hpp"
#include "domain/core/decision.hpp"
#include "domain/model/ekf_tuner.hpp"
#include "domain/policies/policy.hpp"
#include "domain/model/saturation.hpp"
#include "domain/forecast/traffic_forecast.hpp"

namespace capstan {

struct LearnedModels {
  std::map<std::string, TunerState> tuners;           // by "<ns>/<model>/<variant>"
  std::map<std::string, ColdStartState> cold_starts;  // by "<ns>/<model>/<variant>"

  bool operator==(const LearnedModels&) const = default;
};

void to_json(nlohmann::json& j, const LearnedModels& s);
void from_json(const nlohmann::json& j, LearnedModels& s);

struct ModelObservation {
  std::vector<VariantState> variants;
  TrafficSample now;            // rate (router view) and arrival-weighted token lengths
  bool has_token_lengths = false;
  bool usable = false;          // this tick's rate is evidence (not a metrics gap)
  double waiting_requests = 0;  // in the servers
  double backlog = 0;           // waiting + the router's upstream queue
  double horizon_s = 0;         // the longest learned cold start + one tick
  int ready_replicas = 0;
};

// Advances the tuners and cold-start estimators with this tick's data.
ModelObservation learn_model(const ModelTickInput& model, const PolicyConfig& config, double interval_s,
                             LearnedModels& learned);

// The forecast series of a model: fed only usable ticks, token lengths carried over
// ticks that had none.
void observe_traffic(TrafficForecastState& forecaster, const ModelObservation& observed);

// WVA's saturation rule for a model nothing has been learned about yet; holds when
// even that cannot run.
std::vector<ScalingRequest> saturation_fallback(const std::vector<VariantState>& variants,
                                                const SaturationConfig& config);

}  // namespace capstan
