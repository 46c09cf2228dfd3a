// MessagePack written straight into a byte buffer, value by value, with the encoding
// nlohmann's to_msgpack chooses for the same JSON value: the smallest integer form, a
// double as float32 when that holds it exactly (else float64), fixstr / fixarray /
// fixmap when they fit. A codec that writes its record's members in the JSON
// document's order (an object's keys sorted, as nlohmann::json keeps them) therefore
// gives the very bytes `to_msgpack(encode_...(value))` gives, without building the tree
// (issue 19: a model's save in a few microseconds instead of a hundred).
//
// Doubles go through number(), which writes NaN and the infinities as the tokens
// "nan", "inf" and "-inf", and whole numbers as integers, as the state codecs' JSON
// documents hold them (field_reader.hpp non_finite_as_tokens).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

namespace capstan {

class MsgpackWriter {
 public:
  explicit MsgpackWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  void null() { byte(0xC0); }
  void boolean(bool v) { byte(v ? 0xC3 : 0xC2); }

  void integer(std::int64_t v) {
    if (v >= 0) {
      unsigned_integer(static_cast<std::uint64_t>(v));
    } else if (v >= -32) {
      byte(static_cast<std::uint8_t>(static_cast<std::int8_t>(v)));
    } else if (v >= std::numeric_limits<std::int8_t>::min()) {
      byte(0xD0);
      big_endian(static_cast<std::uint8_t>(static_cast<std::int8_t>(v)));
    } else if (v >= std::numeric_limits<std::int16_t>::min()) {
      byte(0xD1);
      big_endian(static_cast<std::uint16_t>(static_cast<std::int16_t>(v)));
    } else if (v >= std::numeric_limits<std::int32_t>::min()) {
      byte(0xD2);
      big_endian(static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
    } else {
      byte(0xD3);
      big_endian(static_cast<std::uint64_t>(v));
    }
  }

  void unsigned_integer(std::uint64_t v) {
    if (v < 128) {
      byte(static_cast<std::uint8_t>(v));
    } else if (v <= 0xFF) {
      byte(0xCC);
      big_endian(static_cast<std::uint8_t>(v));
    } else if (v <= 0xFFFF) {
      byte(0xCD);
      big_endian(static_cast<std::uint16_t>(v));
    } else if (v <= 0xFFFFFFFFu) {
      byte(0xCE);
      big_endian(static_cast<std::uint32_t>(v));
    } else {
      byte(0xCF);
      big_endian(v);
    }
  }

  // A double as the state codecs write it (field_reader.hpp non_finite_as_tokens): a
  // non-finite one as its token, a whole one as an integer, else as nlohmann writes a
  // number_float.
  void number(double v) {
    if (std::isnan(v)) return string("nan");
    if (std::isinf(v)) return string(v > 0 ? "inf" : "-inf");
    if (v == std::floor(v) && std::abs(v) < 0x1p53 && !(v == 0 && std::signbit(v))) {
      return integer(static_cast<std::int64_t>(v));
    }
    float_number(v);
  }

  // A double as encode_number (field_reader.hpp) puts it in the tree, as the tick and
  // event codecs write every double: a non-finite one as its token, else a float.
  void float_or_token(double v) {
    if (std::isnan(v)) return string("nan");
    if (std::isinf(v)) return string(v > 0 ? "inf" : "-inf");
    float_number(v);
  }

  // A double as a float, NaN included: every NaN as the one quiet NaN's 8 bytes, so that
  // equal bytes still mean equal doubles (the compact layouts, which tell a double from
  // a name by its MessagePack type and so cannot use the tokens).
  void float_exact(double v) {
    if (std::isnan(v)) {
      byte(0xCB);
      return big_endian(std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN()));
    }
    float_number(v);
  }

  // A double in the compact observation layout (observation_msgpack.hpp): a whole one
  // that an int64 holds exactly (not -0) as an integer, else as float_exact. Counts and
  // zeros, most of a pod's figures, then take one byte instead of five.
  void whole_or_float_exact(double v) {
    if (v == std::floor(v) && std::abs(v) < 0x1p53 && !(v == 0 && std::signbit(v))) {
      return integer(static_cast<std::int64_t>(v));
    }
    float_exact(v);
  }

  // A finite double as nlohmann writes a number_float.
  void float_number(double v) {
    if (v >= static_cast<double>(std::numeric_limits<float>::lowest()) &&
        v <= static_cast<double>(std::numeric_limits<float>::max()) &&
        static_cast<double>(static_cast<float>(v)) == v) {
      byte(0xCA);
      big_endian(std::bit_cast<std::uint32_t>(static_cast<float>(v)));
    } else {
      byte(0xCB);
      big_endian(std::bit_cast<std::uint64_t>(v));
    }
  }

  void string(std::string_view s) {
    const std::size_t n = s.size();
    if (n <= 31) {
      byte(static_cast<std::uint8_t>(0xA0 | n));
    } else if (n <= 0xFF) {
      byte(0xD9);
      big_endian(static_cast<std::uint8_t>(n));
    } else if (n <= 0xFFFF) {
      byte(0xDA);
      big_endian(static_cast<std::uint16_t>(n));
    } else {
      byte(0xDB);
      big_endian(static_cast<std::uint32_t>(n));
    }
    // As bytes, so that the insert is one copy of a range of the vector's own type
    // (callgrind on a writer benchmark: 11% fewer instructions than a char range).
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
    out_.insert(out_.end(), bytes, bytes + n);
  }

  // The header of an array of n elements, or of a map of n members; the elements (a
  // map's as key, value, key, value...) follow.
  void array(std::size_t n) { header(n, 0x90, 0xDC, 0xDD); }
  void map(std::size_t n) { header(n, 0x80, 0xDE, 0xDF); }

  // Bytes of a whole value encoded elsewhere.
  void raw(const std::vector<std::uint8_t>& bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }

 private:
  void byte(std::uint8_t b) { out_.push_back(b); }

  template <class U>
  void big_endian(U v) {
    for (int shift = static_cast<int>(sizeof(U) * 8) - 8; shift >= 0; shift -= 8) {
      out_.push_back(static_cast<std::uint8_t>(v >> shift));
    }
  }

  void header(std::size_t n, std::uint8_t fix, std::uint8_t with16, std::uint8_t with32) {
    if (n <= 15) {
      byte(static_cast<std::uint8_t>(fix | n));
    } else if (n <= 0xFFFF) {
      byte(with16);
      big_endian(static_cast<std::uint16_t>(n));
    } else {
      byte(with32);
      big_endian(static_cast<std::uint32_t>(n));
    }
  }

  std::vector<std::uint8_t>& out_;
};

}  // namespace capstan
