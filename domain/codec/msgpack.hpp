// MessagePack bytes for the codecs' JSON documents (the event store's compact form):
// nlohmann's to_msgpack / from_msgpack, with a malformed buffer returned as an Error
// instead of thrown. Doubles keep their bits both ways (nlohmann writes a float32 only
// when it holds the double exactly), so a record read back from MessagePack encodes to
// the same bytes.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/result.hpp"

namespace capstan {

std::vector<std::uint8_t> to_msgpack_bytes(const nlohmann::json& json);

// Errors (kInvalidArgument) on a truncated or malformed buffer, or trailing bytes.
Result<nlohmann::json> from_msgpack_bytes(const std::vector<std::uint8_t>& bytes);

}  // namespace capstan
