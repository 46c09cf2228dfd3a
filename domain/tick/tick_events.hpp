// What a tick learned and decided, as typed values (DESIGN.md "Event sourcing"): the
// events learn, plan and allocate return beside their next states. The event store
// persists them; replay compares recomputed ones with recorded ones; a sentence for a
// person is rendered from their fields at the edge, never stored in place of them.
//
// The type names ("params_learned", ...) are part of the event format: add new event
// types and new fields at the end, never rename one.
#pragma once

#include <array>
#include <string>
#include <variant>
#include <vector>

#include "domain/core/decision.hpp"
#include "domain/core/types.hpp"
#include "domain/model/queue_model.hpp"

namespace capstan {

// One EKF step of a variant's queue-model parameters (or its first estimate).
struct ParamsLearned {
  VariantKey variant;
  ServiceParams params;                 // after this tick
  std::array<double, 9> covariance{};   // of log(alpha, beta, gamma), row-major
  double nis = 0;                       // normalised innovation squared; 0 for a first estimate
  bool accepted = false;                // false: the NIS gate kept the previous parameters
  std::string source;                   // "bootstrap", "default" or "ekf"
  std::string note;                     // why a step was rejected, "" otherwise
  long accepted_updates = 0;
  long rejected_updates = 0;

  bool operator==(const ParamsLearned&) const = default;
};

// New start-up times of a variant's replicas, and the cold start now believed.
struct ColdStartLearned {
  VariantKey variant;
  std::vector<double> new_samples_s;
  double estimate_s = 0;
  double prior_s = 0;  // the configured cold start

  bool operator==(const ColdStartLearned&) const = default;
};

// The demand forecast a model is sized for.
struct ForecastMade {
  struct Candidate {
    std::string predictor;
    double recent_error = 0;  // the selector's error measure; NaN before any
    bool operator==(const Candidate&) const = default;
  };
  ModelKey model;
  std::string predictor;      // the one chosen
  double horizon_s = 0;
  double rate_rps = 0;        // forecast at the horizon
  double observed_rps = 0;    // this tick's rate
  std::vector<Candidate> candidates;

  bool operator==(const ForecastMade&) const = default;
};

// How one variant's capacity was sized this tick.
struct CapacitySized {
  ModelKey model;
  std::string variant;
  SloTargets slo;                  // the targets sized against
  std::string slo_source;          // "explicit", "derived", "observed", ...
  double lambda_star_rps = 0;      // per replica at the SLO's mean
  double per_replica_rps = 0;      // what sized the fleet after every bound
  std::string bound;               // what set per_replica_rps: "mean", "ttft-tail", "itl-spread", "served", ...
  double demand_rps = 0;
  int required_replicas = 0;

  bool operator==(const CapacitySized&) const = default;
};

// A finishing stage changed a variant's target.
enum class Stage { kMetricGuard, kStepLimit, kPdBand, kEnforcer, kBudget };
const char* to_string(Stage stage);

struct StageApplied {
  ModelKey model;
  std::string variant;
  Stage stage = Stage::kMetricGuard;
  int before = 0;  // the target the stage was given
  int after = 0;   // the target it left
  ReasonCode code = ReasonCode::kHold;

  bool operator==(const StageApplied&) const = default;
};

// The final word on one variant this tick.
struct DecisionMade {
  Decision decision;

  bool operator==(const DecisionMade&) const = default;
};

using TickEvent = std::variant<ParamsLearned, ColdStartLearned, ForecastMade, CapacitySized, StageApplied, DecisionMade>;

// "params_learned", "cold_start_learned", "forecast", "capacity", "stage", "decision".
const char* event_type(const TickEvent& event);

}  // namespace capstan
