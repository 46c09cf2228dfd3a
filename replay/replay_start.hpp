// Where a replay over part of a recorded history starts (issue 23): the state the
// daemon had just before the range, and the policy that made the history. The state is
// the newest snapshot when it lies before the range (actors/resume.hpp reads it, as a
// restart does), else the empty fleet before the store's first event, when retention
// has not removed it; the fold from there to the range's first tick is resume's own
// (actors::fold_recorded), so replay and restart cannot drift apart.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "actors/resume.hpp"
#include "storage/event_store.hpp"

namespace capstan::replay {

// The ticks a command looks at: by sequence, by time, or both (inclusive bounds).
struct ReplayRange {
  std::uint64_t from_seq = 1;
  std::uint64_t to_seq = std::numeric_limits<std::uint64_t>::max();
  std::optional<double> from_time_s;
  std::optional<double> to_time_s;

  bool contains(std::uint64_t seq, double time_s) const {
    return seq >= from_seq && seq <= to_seq && (!from_time_s || time_s >= *from_time_s) &&
           (!to_time_s || time_s <= *to_time_s);
  }
};

struct ReplayStart {
  actors::FoldStart fold;
  std::string policy;  // the recorded policy's name
};

// Errors when the events before the range are gone and no snapshot precedes it, when
// the store holds no configuration, or a record cannot be read.
Result<ReplayStart> replay_start(const storage::EventStore& store, const ReplayRange& range);

// "ns/model_id" and "ns/model_id/variant", as every replay output names them.
std::string model_name(const ModelKey& model);
std::string variant_name(const ModelKey& model, const std::string& variant);

}  // namespace capstan::replay
