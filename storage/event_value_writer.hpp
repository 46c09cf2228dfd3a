// The stored value of an event written straight with MsgpackWriter, without building
// the JSON tree (records.hpp): the daemon appends about four events per variant per
// tick, and a 10,000-variant tick must be durable well inside 300 ms, where building
// nlohmann's tree costs several microseconds an event.
//
// The bytes are exactly to_msgpack(encode_event_document(event)): members in the
// tree's sorted order, numbers in the forms nlohmann chooses (the tick codecs write a
// double as a float, NaN and the infinities as tokens). The observation's payload, one
// per model, and the configuration's opaque documents go through their trees.
// tests/storage/records_test.cpp compares the two on every type.
//
// A decision's, a forecast's, a capacity event's and an observation's payloads are
// written in their compact layouts, schema 2 (domain/codec/decision_msgpack.hpp,
// sizing_msgpack.hpp, observation_msgpack.hpp), or in schema 1 when asked: `replay verify`
// compares a recomputed event with a stored one in the layout the stored one was
// written in (payload_schema, event_value_reader.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "storage/records.hpp"

namespace capstan::storage {

// The schema a payload is written in: its type's newest, or one given.
inline constexpr int kNewestPayloadSchema = 0;

// Appends the value's bytes to `out`, the payload in `payload_schema` where its type has
// more than one layout (decision, forecast, capacity, observation: 1 or 2; the newest
// for any other number).
void write_event_value(const Event& event, std::vector<std::uint8_t>& out, int payload_schema = kNewestPayloadSchema);

}  // namespace capstan::storage
