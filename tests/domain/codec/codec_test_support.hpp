// What the codec tests share: doubles that are hard to round-trip, their bit patterns,
// and a walk over every field of a valid document, so that each test can delete or
// mistype each field in turn and check that the error names exactly that field.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"

namespace capstan::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kDenormMin = std::numeric_limits<double>::denorm_min();

inline std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

// A member of an object in a document, as the path FieldReader names it
// ("covariance[2]", "decision.model.ns") and the pointer that reaches it.
struct Field {
  std::string path;
  nlohmann::json::json_pointer pointer;
};

inline void collect_fields(const nlohmann::json& j, const std::string& path, const nlohmann::json::json_pointer& at,
                           std::vector<Field>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      out.push_back({child, at / key});
      collect_fields(value, child, at / key, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) collect_fields(j[i], path + "[" + std::to_string(i) + "]", at / i, out);
  }
}

// A value of another JSON type than `v` that no reader accepts in its place.
inline nlohmann::json wrong_type_for(const nlohmann::json& v) {
  return v.is_string() ? nlohmann::json(true) : nlohmann::json("x");
}

// The error names the field exactly, not some longer path that ends with it.
inline bool names_field(const std::string& message, const std::string& path) {
  return message.find(": " + path + " ") != std::string::npos || message.find(": " + path + ":") != std::string::npos;
}

// What a compact payload reader, called as read(FieldReader(payload, "payload"), model),
// refuses `payload` with; "(accepted)" when it reads it.
template <class Read, class Model>
std::string compact_error_of(const nlohmann::json& payload, Read read, const Model& model) {
  try {
    read(FieldReader(payload, "payload"), model);
  } catch (const CodecError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace capstan::testing
