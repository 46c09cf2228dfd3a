#include "domain/codec/compact_layout.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace capstan::compact_layout {

nlohmann::json float_exact(double v) { return std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : v; }

nlohmann::json whole_or_float_exact(double v) {
  if (v == std::floor(v) && std::abs(v) < 0x1p53 && !(v == 0 && std::signbit(v))) return static_cast<std::int64_t>(v);
  return float_exact(v);
}

FieldReader element(const FieldReader& array, std::size_t i, const char* name) {
  if (!array.json().is_array()) array.fail("must be an array");
  const std::string path = array.path() + "." + name;
  if (i >= array.json().size()) throw CodecError(path + " is missing");
  return FieldReader(array.json()[i], path);
}

void expect_layout(const FieldReader& payload, int schema, const char* what, std::size_t size, const char* fields) {
  if (!payload.json().is_array()) payload.fail(std::string("must be an array (a ") + what + " of schema " + std::to_string(schema) + ")");
  const FieldReader version = element(payload, 0, "schema");
  if (version.integer() != schema) {
    const bool vowel = std::string_view("aeiou").find(what[0]) != std::string_view::npos;
    throw CodecError(version.path() + " " + std::to_string(version.integer()) + (vowel ? " is not an " : " is not a ") + what +
                     " layout this build reads (1 or " + std::to_string(schema) + ")");
  }
  if (payload.size() != size) {
    payload.fail("must hold " + std::to_string(size) + " elements (" + fields + ")");
  }
}

}  // namespace capstan::compact_layout
