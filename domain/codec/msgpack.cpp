#include "domain/codec/msgpack.hpp"

#include <string>

#include <nlohmann/json.hpp>

namespace capstan {

std::vector<std::uint8_t> to_msgpack_bytes(const nlohmann::json& json) { return nlohmann::json::to_msgpack(json); }

Result<nlohmann::json> from_msgpack_bytes(const std::vector<std::uint8_t>& bytes) {
  try {
    return nlohmann::json::from_msgpack(bytes);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument("MessagePack record of " + std::to_string(bytes.size()) + " bytes is malformed: " + e.what());
  }
}

}  // namespace capstan
