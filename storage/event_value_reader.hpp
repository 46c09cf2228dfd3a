// The stored value of an event read straight from its MessagePack bytes, without the
// JSON tree: a restart folds every event after the newest snapshots, and a replay or an
// export reads the whole store, where decoding through nlohmann's tree costs tens of
// microseconds an event.
//
// The reader expects the value laid out as event_value_writer.hpp writes it and throws
// MsgpackMismatch (domain/codec/msgpack_reader.hpp) at the first byte that is not, and
// for the type it leaves to the tree (config_applied); decode_event_value
// then reads the same bytes through the tree, which accepts what it accepts and refuses
// the rest naming the field. So this reader never has to be right about an error, only
// about a record it accepts, which it reads to the same values as the tree.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "storage/records.hpp"

namespace capstan::storage {

Event read_event_value(std::uint64_t seq, std::span<const std::uint8_t> bytes);

// The type and time of a stored value read from its end alone, the envelope's members
// after the payload ("schema" 1 "time_s" <number> "type" <name>), without stepping over
// the payload as decode_event_header does (most of its time): what the fold needs to
// tell a tick event, whose bytes it keeps, from the events it decodes. It checks nothing
// before those members, so a reader that keeps a value by it must read or compare the
// value whole later (`replay verify` and a restart compare every kept tick event with
// the recomputed one byte for byte; what-if decodes them). nullopt when the end is not
// laid out as the writer lays it out; decode_event_header then reads the value and
// names what is wrong. `type` points into `bytes`.
struct EventTail {
  std::string_view type;
  double time_s = 0;
};
std::optional<EventTail> read_event_tail(std::span<const std::uint8_t> bytes);

// The schema of a stored value's payload, as its writer laid it out: the first element
// of a compact layout's array (a decision, forecast or capacity of schema 2), 1 for an
// object (every type's
// first layout), 0 for bytes that are no value of the writer's envelope. `replay verify`
// writes a recomputed event in the recorded one's schema (event_value_writer.hpp).
int payload_schema(std::span<const std::uint8_t> bytes);

}  // namespace capstan::storage
