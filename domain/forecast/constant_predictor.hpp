// The constant (last value) load predictor of the Dynamo planner (seed 001, "Load
// Prediction"; seed 003): tomorrow looks like the last observation. Every other
// predictor falls back to it while it has too few points to fit.
//
// Predictors are pure: the state is a plain serialisable struct, observe() returns the
// next state, forecast() reads it. Non-finite observations (metric gaps) are ignored.
// Forecasts are floored at 0: rates and token lengths are never negative.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace capstan {

struct ConstantState {
  std::int64_t count = 0;  // observations folded in
  double last = 0;         // the latest observation
};

ConstantState observe(const ConstantState& state, double value);
// 0 before the first observation.
double forecast(const ConstantState& state, double horizon_steps);

void to_json(nlohmann::json& j, const ConstantState& s);
void from_json(const nlohmann::json& j, ConstantState& s);

}  // namespace capstan
