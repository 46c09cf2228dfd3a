// `capstan replay what-if` (issue 23): the recorded inputs of a history folded again
// through the one tick driver (actors::fold_recorded) under another configuration or
// policy, and each recomputed decision set beside the recorded one. It replays the
// demand and fleet that were observed: a fleet sized differently would have seen other
// queues and latencies, which this does not model (the output says so). Under the
// recorded configuration and policy it changes nothing, bit for bit (a test checks).
//
// Replica-hours count each decision's target over its tick's interval: what the fleet
// was asked to run, not what became ready.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "replay/replay_start.hpp"

namespace capstan::replay {

struct WhatIfOptions {
  ReplayRange range;
  std::optional<actors::ConfigUpdate> config;  // every tick under it; nullopt: the recorded ones
  std::string policy;                          // "": the recorded policy
  std::size_t max_changes = 20;                // changed decisions kept for printing
};

struct ChangedDecision {
  std::uint64_t tick = 0;
  double time_s = 0;
  Decision recorded;
  Decision what_if;  // a default Decision (empty variant) when the what-if made none for it
};

struct VariantDifference {
  ModelKey model;
  std::string variant;
  std::uint64_t decisions = 0;  // ticks with a recorded decision for it
  std::uint64_t changed = 0;    // of those, where the what-if's target differs
  double recorded_replica_hours = 0;
  double what_if_replica_hours = 0;
  std::optional<CapacitySized> recorded_last;  // the last sizing of each side (SLO and its source, lambda*)
  std::optional<CapacitySized> what_if_last;
};

struct WhatIfReport {
  std::string recorded_policy;
  std::string what_if_policy;
  std::uint64_t ticks = 0;
  std::vector<VariantDifference> variants;  // by model and variant
  std::uint64_t changed = 0;                // decisions whose target or reason differs
  std::vector<ChangedDecision> changes;     // the first max_changes of them
};

// Errors as replay_start, for an unknown policy, or when a record cannot be read.
Result<WhatIfReport> what_if(const storage::EventStore& store, const WhatIfOptions& options);

}  // namespace capstan::replay
