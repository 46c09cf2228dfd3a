// domain/codec/msgpack_reader.hpp: a literal key is read in any of MessagePack's string
// encodings, as a key given as a string_view is.
#include "domain/codec/msgpack_reader.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

namespace capstan {

namespace {

std::vector<std::uint8_t> bytes_of(std::initializer_list<int> bytes, std::string_view text = "") {
  std::vector<std::uint8_t> out;
  for (int b : bytes) out.push_back(static_cast<std::uint8_t>(b));
  out.insert(out.end(), text.begin(), text.end());
  return out;
}

}  // namespace

TEST_CASE("a literal key is read as a short string and as a longer string's encoding alike") {
  for (const auto& encoded : {bytes_of({0xA4}, "type"), bytes_of({0xD9, 4}, "type"), bytes_of({0xDA, 0, 4}, "type")}) {
    MsgpackReader literal(encoded);
    literal.key("type");
    CHECK(literal.at_end());
    MsgpackReader viewed(encoded);
    viewed.key(std::string_view("type"));
    CHECK(viewed.at_end());
  }
}

TEST_CASE("a literal key that differs, or is cut short, is refused") {
  for (const auto& encoded : {bytes_of({0xA4}, "typo"), bytes_of({0xA3}, "typ"), bytes_of({0xA4}, "typ"),
                              bytes_of({0xA5}, "types"), bytes_of({0xD9, 4}, "tyqe"), bytes_of({})}) {
    MsgpackReader r(encoded);
    CHECK_THROWS_AS(r.key("type"), MsgpackMismatch);
  }
}

}  // namespace capstan
