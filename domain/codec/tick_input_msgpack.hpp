// A ModelTickInput straight to and from MessagePack bytes (issues 21 and 23): the
// daemon records one observation per model every tick, most of a tick's bytes (per-pod
// metrics and their ITL histograms), and building nlohmann's tree of
// tick_input_codec.hpp for each, then converting it, was the largest cost of making a
// tick durable and of reading a store back.
//
// The bytes are those of `to_msgpack(encode_model_tick_input(input))`, the same record
// written without the tree: stores written either way read alike. Reading takes the
// fast path over a record laid out as this writer lays it out; anything else (members
// in another order, a float where an integer was written, a malformed field) goes
// through the JSON reader of tick_input_codec.hpp, which accepts what it always accepted
// and refuses the rest naming the field. So this reader accepts and refuses exactly
// what decode_model_tick_input does.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/tick/tick_input.hpp"

namespace capstan {

class MsgpackWriter;
class MsgpackReader;

// Appends the record (schema included) to what `w` writes, for records that embed it.
void write_model_tick_input_msgpack(MsgpackWriter& w, const ModelTickInput& input);
// Reads a record laid out as the writer lays it out, or throws MsgpackMismatch
// (msgpack_reader.hpp) at the first byte that is not; the caller then reads the same
// bytes through the tree.
ModelTickInput read_model_tick_input_msgpack(MsgpackReader& r);

std::vector<std::uint8_t> encode_model_tick_input_msgpack(const ModelTickInput& input);
Result<ModelTickInput> decode_model_tick_input_msgpack(std::span<const std::uint8_t> bytes);

}  // namespace capstan
