// Reading recorded values back from JSON (or MessagePack decoded to JSON) with errors
// that name the whole path of the field at fault: "models[0].variants[1].state.pods[2]
// .avg_ttft_ms must be a number, got \"x\"". Every codec of domain/codec/ reads through
// it, so a malformed record is refused the same way wherever it comes from.
//
// Doubles are written so that they read back bit for bit: finite ones as JSON numbers
// (nlohmann writes the shortest text that round-trips), NaN and the infinities as the
// strings "nan", "inf" and "-inf" (JSON has no literal for them, and a metrics gap
// records NaN pod metrics verbatim).
//
// A FieldReader throws CodecError; the codecs catch it at their boundary and return an
// Error, so nothing throws across the domain's API (result.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan {

struct CodecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A double as a JSON value that reads back exactly (see the header comment).
nlohmann::json encode_number(double value);
nlohmann::json encode_numbers(const std::vector<double>& values);
// nullopt as null.
nlohmann::json encode_optional(const std::optional<double>& value);
nlohmann::json encode_optional(const std::optional<int>& value);
// A value written through nlohmann conversions of its own, which write a non-finite
// double as null, with every non-finite number turned into its token instead, and every
// whole number (token counts, times in seconds) into an integer, which MessagePack holds
// in one to three bytes where a float takes five or nine; -0 stays a float, and every
// reader takes an integer where it reads a double, to the same value. And the inverse
// of the tokens, every token string turned back into its number, before such a
// conversion reads it.
nlohmann::json non_finite_as_tokens(nlohmann::json j);
// Written as an integer by the state codecs: whole, of magnitude under 2^53, not -0.
bool is_whole_number(double v);
nlohmann::json non_finite_from_tokens(nlohmann::json j);

class FieldReader {
 public:
  // `path` names this value in errors ("" for a document's root).
  FieldReader(const nlohmann::json& json, std::string path) : json_(&json), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  const nlohmann::json& json() const { return *json_; }

  // The member `key` of an object; throws naming the path when this is not an object
  // or the member is missing.
  FieldReader at(const std::string& key) const;
  bool has(const std::string& key) const;
  // Element i of an array.
  FieldReader at(std::size_t i) const;
  // The number of elements of an array; throws when this is not one.
  std::size_t size() const;
  // The keys of an object, in the document's order.
  std::vector<std::string> keys() const;

  double number() const;              // a number, or "nan" / "inf" / "-inf"
  double finite_number() const;       // a finite number
  long long integer() const;          // an integral number
  int int32() const;                  // an integral number that fits an int
  std::uint64_t unsigned64() const;   // an integral number >= 0
  bool boolean() const;
  std::string string() const;
  bool is_null() const { return json_->is_null(); }
  std::optional<double> optional_number() const;  // null -> nullopt
  std::optional<int> optional_int32() const;
  std::vector<double> numbers() const;            // an array of numbers

  // Throws CodecError "<path> <what>, got <value>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const nlohmann::json* json_;
  std::string path_;
};

// Runs `read` and turns a CodecError or a nlohmann exception into an Error prefixed
// with `what` ("tick input: models[0].now_s must be a number, got null").
template <class T, class Read>
Result<T> decode_with(const std::string& what, Read&& read) {
  try {
    return read();
  } catch (const CodecError& e) {
    return invalid_argument(what + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(what + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    return invalid_argument(what + ": " + e.what());
  }
}

// The schema version check every versioned record starts with: member "schema" must be
// present and equal `expected`; an unknown version is refused with both numbers.
void expect_schema(const FieldReader& record, int expected);

}  // namespace capstan
