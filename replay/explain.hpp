// `capstan replay explain` (issue 23): the full reasoning of one model's decision at a
// time (the last tick at or before it), from what was recorded: the observation it was
// made from, the demand forecast, and per variant the SLO with where it came from (the
// resolution chain explicit > derived > observed), the learned parameters, lambda* and
// the per-replica rate that sized the fleet, the replicas required, the optimizer's
// proposal, each finishing stage that changed it, and the final target with its reason.
#pragma once

#include <ostream>
#include <vector>

#include "replay/recorded_decisions.hpp"

namespace capstan::replay {

// The decisions of `model` at the last tick at or before `at_s`, one per variant in
// decision order; empty when the model decided nothing by then.
Result<std::vector<DecisionRecord>> decisions_at(const storage::EventStore& store, const ModelKey& model, double at_s);

// The explanation as text, for a person.
void write_explanation(const std::vector<DecisionRecord>& decisions, double asked_s, std::ostream& out);

}  // namespace capstan::replay
