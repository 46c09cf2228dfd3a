// The recorded decisions of a store with the inputs of each, read from the tick's own
// events (issue 23: timeline, explain, report): for a decision of variant V of model M
// at tick N, the same tick's params_learned and cold_start_learned of V, forecast of M,
// capacity of V, the stages that changed V's target, and M's observation. Nothing is
// recomputed: this is what the daemon recorded.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "replay/replay_start.hpp"

namespace capstan::replay {

struct DecisionRecord {
  std::uint64_t seq = 0;   // of the decision event
  std::uint64_t tick = 0;
  double time_s = 0;
  double interval_s = 0;   // the tick's
  Decision decision;
  std::optional<ParamsLearned> params;
  std::optional<ColdStartLearned> cold_start;
  std::optional<ForecastMade> forecast;
  std::optional<CapacitySized> capacity;
  std::vector<StageApplied> stages;              // in the order they ran
  std::optional<ModelTickInput> observation;     // the model's, as the tick used it
  const VariantTickInput* observed_variant() const;  // V's part of it; nullptr without
};

struct DecisionFilter {
  ReplayRange range;
  std::optional<ModelKey> model;
  std::optional<std::string> variant;
  bool with_observation = false;  // copy the model's observation into each record (explain, report)
};

// Visits the decisions the filter selects in seq order; stops when visit returns false.
Result<bool> for_each_decision(const storage::EventStore& store, const DecisionFilter& filter,
                               const std::function<bool(DecisionRecord&)>& visit);

// The models the store has decided for, in order: for naming the known ones in an error.
Result<std::vector<ModelKey>> recorded_models(const storage::EventStore& store);

}  // namespace capstan::replay
