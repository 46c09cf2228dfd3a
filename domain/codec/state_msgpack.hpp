// A fleet's states straight to and from MessagePack bytes (issue 19: a model's save and
// restore each in at most 20 us, where building the JSON tree of state_codec.hpp and
// converting it costs over a hundred).
//
// The bytes are those of `to_msgpack(encode_fleet_memory(policy, memory))`, the same
// record written without the tree: one format, whichever way it was written. Reading
// takes the fast path over a record laid out as this writer lays it out, and anything
// else (members in another order, a number where an integer was written, a malformed
// field) goes through the JSON reader of state_codec.hpp, which accepts what it always
// accepted and refuses the rest naming the field; so this reader accepts and refuses
// exactly what decode_fleet_memory does, all or nothing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/tick/tick_driver.hpp"

namespace capstan {

std::vector<std::uint8_t> encode_fleet_memory_msgpack(const std::string& policy, const FleetMemory& memory);

class MsgpackWriter;
// One model's state and one variant's memory as to_msgpack writes encode_model_state's
// and encode_variant_memory's documents (state_codec.hpp), for a record that holds them
// among its own members (the daemon's model snapshot, actors/message_codec.hpp).
void write_model_state_msgpack(MsgpackWriter& w, const ModelState& state);
void write_variant_memory_msgpack(MsgpackWriter& w, const VariantMemory& memory);
Result<FleetMemory> decode_fleet_memory_msgpack(const std::string& policy, std::span<const std::uint8_t> bytes);

}  // namespace capstan
