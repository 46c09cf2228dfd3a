#include "domain/forecast/constant_predictor.hpp"

#include <algorithm>
#include <cmath>

namespace capstan {

ConstantState observe(const ConstantState& state, double value) {
  if (!std::isfinite(value)) return state;
  return {state.count + 1, value};
}

double forecast(const ConstantState& state, double /*horizon_steps*/) {
  return state.count > 0 ? std::max(0.0, state.last) : 0.0;
}

void to_json(nlohmann::json& j, const ConstantState& s) {
  j = {{"count", s.count}, {"last", s.last}};
}

void from_json(const nlohmann::json& j, ConstantState& s) {
  j.at("count").get_to(s.count);
  j.at("last").get_to(s.last);
}

}  // namespace capstan
