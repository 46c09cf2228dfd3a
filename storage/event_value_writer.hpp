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
#pragma once

#include <cstdint>
#include <vector>

#include "storage/records.hpp"

namespace capstan::storage {

// Appends the value's bytes to `out`.
void write_event_value(const Event& event, std::vector<std::uint8_t>& out);

}  // namespace capstan::storage
