// One load predictor of any kind behind one value type: the Dynamo planner's choice of
// load predictor (seed 001 "Load Prediction": constant, Holt, Kalman, ARIMA, seasonal;
// all warm-startable from a trace) and Inferscale's Holt forecaster (seed 004 ch. 4).
// A PredictorState forecasts one scalar series (request rate, average input length or
// average output length) from its own explicit state: observe() returns the next
// state, forecast() reads it. No clock, no I/O, no randomness; JSON round trips give
// bit-identical forecasts.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/forecast/arima_predictor.hpp"
#include "domain/forecast/constant_predictor.hpp"
#include "domain/forecast/holt_predictor.hpp"
#include "domain/forecast/kalman_predictor.hpp"
#include "domain/core/result.hpp"
#include "domain/forecast/seasonal_predictor.hpp"

namespace capstan {

enum class PredictorKind { kConstant, kHolt, kKalman, kArima, kSeasonal };

const char* to_string(PredictorKind kind);
bool parse_predictor_kind(const std::string& text, PredictorKind& out);
// Every kind's name, comma-separated, for errors that list the choices.
std::string predictor_names();
inline const std::vector<PredictorKind>& all_predictor_kinds() {
  static const std::vector<PredictorKind> kinds = {PredictorKind::kConstant, PredictorKind::kHolt,
                                                   PredictorKind::kKalman, PredictorKind::kArima,
                                                   PredictorKind::kSeasonal};
  return kinds;
}

// The tuning of every kind; a predictor uses the part for its kind.
struct PredictorConfig {
  HoltConfig holt;
  KalmanConfig kalman;
  ArimaConfig arima;
  SeasonalConfig seasonal;
};

struct PredictorState {
  std::variant<ConstantState, HoltState, KalmanState, ArimaState, SeasonalState> model;
};

// Validates the config part of `kind`; the error names the field.
Result<PredictorState> make_predictor(PredictorKind kind, const PredictorConfig& config = {});

PredictorKind kind_of(const PredictorState& state);
PredictorState observe(const PredictorState& state, double value);
double forecast(const PredictorState& state, double horizon_steps);
// Observations folded in so far (non-finite ones are skipped, not counted).
std::int64_t observation_count(const PredictorState& state);

// Warm start: folds a recorded series (oldest first) into the state.
template <class State>
State warm_start(State state, const std::vector<double>& series) {
  for (double v : series) state = observe(state, v);
  return state;
}

// {"kind": "holt", "state": {...}}
void to_json(nlohmann::json& j, const PredictorState& s);
void from_json(const nlohmann::json& j, PredictorState& s);
// from_json without exceptions, for input that crosses a boundary.
Result<PredictorState> predictor_from_json(const nlohmann::json& j);

}  // namespace capstan
