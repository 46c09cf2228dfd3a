#include "domain/codec/msgpack_writer.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace capstan;

// The writer's promise (msgpack_writer.hpp): the very bytes nlohmann's to_msgpack gives
// for the same JSON value. Strings are copied in one piece, so every length class of
// their header (fixstr, str8, str16, str32) is checked with its bytes after it.
TEST_CASE("A string is written as nlohmann writes it, at every length class") {
  for (std::size_t n : {0, 1, 15, 31, 32, 255, 256, 65535, 65536, 70000}) {
    INFO(n << " bytes");
    std::string s(n, 'x');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    if (n > 0) s[n - 1] = static_cast<char>(0xE9);  // a byte above 0x7F is copied as it is
    std::vector<std::uint8_t> out{0x42};            // an earlier value stays in front
    MsgpackWriter w(out);
    w.string(s);
    std::vector<std::uint8_t> expected{0x42};
    const auto reference = nlohmann::json::to_msgpack(nlohmann::json(s));
    expected.insert(expected.end(), reference.begin(), reference.end());
    CHECK(out == expected);
  }
}
