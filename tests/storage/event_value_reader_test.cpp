#include "storage/event_value_reader.hpp"

#include <bit>
#include <cstdint>
#include <span>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "storage/store_test_support.hpp"

namespace capstan::storage {
namespace {

using namespace capstan::testing;

std::span<const std::uint8_t> bytes_of(const std::string& value) {
  return {reinterpret_cast<const std::uint8_t*>(value.data()), value.size()};
}

TEST_CASE("the value's end gives the type and time the whole envelope gives, for every type and time encoding") {
  for (Event e : one_of_each_event()) {
    // float32-exact, float64, the tokens, an integral time
    for (double time_s : {e.time_s, 1'700'000'000.125, 30.0, 0.1, kNaN, kInf, -kInf, -0.0}) {
      e.time_s = time_s;
      for (const std::string& value : {encode_event_value(e), [&] {
                                         const auto tree = nlohmann::json::to_msgpack(encode_event_document(e));
                                         return std::string(tree.begin(), tree.end());
                                       }()}) {
        const auto header = decode_event_header(1, value);
        REQUIRE(header.ok());
        const auto tail = read_event_tail(bytes_of(value));
        REQUIRE(tail.has_value());
        CHECK(tail->type == header->type);
        CHECK(std::bit_cast<std::uint64_t>(tail->time_s) == std::bit_cast<std::uint64_t>(header->time_s));
      }
    }
  }
}

TEST_CASE("a value whose end is not laid out as written gives no tail") {
  const std::string valid = encode_event_value(decision_event(kLlama, 5));
  std::string other_schema = valid;
  other_schema[other_schema.rfind("\xA6schema") + 7] = 2;  // the envelope's, the last
  REQUIRE_FALSE(decode_event_header(1, other_schema).ok());
  for (const std::string& value : {std::string(), std::string("\xC1garbage", 8), valid.substr(0, valid.size() / 2),
                                   valid + "x", valid.substr(0, valid.size() - 1), other_schema}) {
    CHECK_FALSE(read_event_tail(bytes_of(value)).has_value());
  }
}

TEST_CASE("the tail reads the end alone: a value damaged before it still gives its type, which decoding refuses") {
  std::string value = encode_event_value(one_of_each_event()[7]);  // params_learned
  value[1] = '\xC1';  // the "model" key's header
  const auto tail = read_event_tail(bytes_of(value));
  REQUIRE(tail.has_value());
  CHECK(tail->type == "params_learned");
  CHECK_FALSE(decode_event_value(1, value).ok());
  CHECK_FALSE(decode_event_header(1, value).ok());
}

}  // namespace
}  // namespace capstan::storage
