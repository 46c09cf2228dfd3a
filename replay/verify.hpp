// `capstan replay verify` (issue 23): the determinism guarantee, checked. Re-runs the
// recorded inputs (observations, configuration, tick times) through the one tick driver
// from the state just before the range (replay_start.hpp), and compares every event the
// driver recomputes (params_learned, cold_start_learned, forecast, capacity, stage,
// decision) with the recorded one by its stored bytes: the MessagePack value of the
// recomputed event, stamped with the recorded time and written in the recorded payload's
// schema (a store written before the compact layouts verifies too), must equal the
// recorded value's, so a NaN matches a NaN and 0.0 does not match -0.0. What makes this hold is in
// replay/README.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "replay/replay_start.hpp"

namespace capstan::replay {

// One recomputed event that is not the recorded one; "" for a side that has none (the
// driver made fewer or more events than were recorded).
struct Divergence {
  std::uint64_t seq = 0;  // of the recorded event (of the tick's `tick` event when none was recorded)
  std::uint64_t tick = 0;
  double time_s = 0;
  std::string type;       // "decision", ...
  std::string subject;    // "ns/model_id[/variant]"
  std::string recorded;   // the payloads as JSON (storage::event_to_json)
  std::string recomputed;
};

struct TypeCount {
  std::uint64_t compared = 0;
  std::uint64_t matched = 0;
};

struct VerifyReport {
  std::string policy;
  std::uint64_t start_seq = 0;      // the snapshot the fold started from; 0: the empty fleet
  std::uint64_t ticks_folded = 0;   // including those before the range
  std::uint64_t ticks_compared = 0;
  std::uint64_t events_compared = 0;
  std::uint64_t events_matched = 0;
  std::map<std::string, TypeCount> by_type;
  std::uint64_t divergences = 0;
  std::vector<Divergence> first;    // at most max_divergences, in seq order

  bool all_match() const { return divergences == 0; }
};

// Errors as replay_start, or when a record cannot be read.
Result<VerifyReport> verify(const storage::EventStore& store, const ReplayRange& range, std::size_t max_divergences = 10);

}  // namespace capstan::replay
