#include "domain/tick/tick_events.hpp"

#include <iterator>

namespace capstan {

const char* to_string(Stage stage) {
  switch (stage) {
    case Stage::kMetricGuard: return "metric_guard";
    case Stage::kStepLimit: return "step_limit";
    case Stage::kPdBand: return "pd_band";
    case Stage::kEnforcer: return "enforcer";
    case Stage::kBudget: return "budget";
  }
  return "unknown";
}

const char* event_type(const TickEvent& event) {
  // In the order of TickEvent's alternatives, which are appended, never reordered.
  static constexpr const char* kTypes[] = {"params_learned", "cold_start_learned", "forecast",
                                           "capacity",       "stage",              "decision"};
  static_assert(std::size(kTypes) == std::variant_size_v<TickEvent>);
  return kTypes[event.index()];
}

}  // namespace capstan
