// `capstan replay export`: the recorded events of a store as JSON lines, one event a
// line in sequence order, {"seq", "type", "time_s", "model", "payload"}
// (storage/records.hpp event_to_json), for incident review with jq or a notebook. The
// store is opened read-only, so a live daemon's store can be exported beside it.
#pragma once

#include <cstdint>
#include <ostream>

#include "domain/core/result.hpp"
#include "storage/event_store.hpp"

namespace capstan::replay {

// Writes the events `filter` selects to `out`; returns how many. Errors name the event
// that could not be read or the write that failed. Open the store with
// EventStore::open_read_only, which names a missing directory or one that is not a store.
Result<std::uint64_t> export_events(const storage::EventStore& store, const storage::EventFilter& filter,
                                    std::ostream& out);

}  // namespace capstan::replay
