// MessagePack read straight from bytes, value by value, for a codec's fast path: the
// reader expects the record laid out exactly as its writer lays it out (members in
// order, each of its type) and throws MsgpackMismatch at the first byte that is not.
// It names nothing: a codec catches the mismatch and reads the same bytes again
// through the JSON tree (from_msgpack_bytes and a FieldReader), which accepts whatever
// that path accepts and names the field at fault when it refuses. So the fast path
// never has to be right about an error, only about a record it accepts, which it reads
// to the same values as the tree would.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string_view>

namespace capstan {

struct MsgpackMismatch : std::runtime_error {
  MsgpackMismatch() : std::runtime_error("MessagePack record not in its writer's layout") {}
};

class MsgpackReader {
 public:
  explicit MsgpackReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool at_end() const { return pos_ == bytes_.size(); }
  std::size_t position() const { return pos_; }
  std::span<const std::uint8_t> bytes() const { return bytes_; }

  bool next_is_null() const { return pos_ < bytes_.size() && bytes_[pos_] == 0xC0; }
  // The next value's family, for a layout whose element may be of more than one.
  bool next_is_float() const { return pos_ < bytes_.size() && (bytes_[pos_] == 0xCA || bytes_[pos_] == 0xCB); }
  bool next_is_string() const {
    return pos_ < bytes_.size() && ((bytes_[pos_] & 0xE0) == 0xA0 || (bytes_[pos_] >= 0xD9 && bytes_[pos_] <= 0xDB));
  }
  bool next_is_array() const {
    return pos_ < bytes_.size() && ((bytes_[pos_] & 0xF0) == 0x90 || bytes_[pos_] == 0xDC || bytes_[pos_] == 0xDD);
  }
  void null() {
    if (take() != 0xC0) mismatch();
  }
  bool boolean() {
    const std::uint8_t b = take();
    if (b == 0xC2) return false;
    if (b == 0xC3) return true;
    mismatch();
  }

  std::size_t array() { return header(0x90, 0xDC, 0xDD); }
  std::size_t map() { return header(0x80, 0xDE, 0xDF); }
  void array(std::size_t n) {
    if (array() != n) mismatch();
  }
  void map(std::size_t n) {
    if (map() != n) mismatch();
  }

  std::string_view string() {
    const std::uint8_t b = take();
    std::size_t n = 0;
    if ((b & 0xE0) == 0xA0) {
      n = b & 0x1F;
    } else if (b == 0xD9) {
      n = big_endian<std::uint8_t>();
    } else if (b == 0xDA) {
      n = big_endian<std::uint16_t>();
    } else if (b == 0xDB) {
      n = big_endian<std::uint32_t>();
    } else {
      mismatch();
    }
    need(n);
    const std::string_view out(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return out;
  }
  void key(std::string_view expected) {
    if (string() != expected) mismatch();
  }
  // A literal key (every reader's members): as a string of its length at most 31, it is
  // compared with a comparison of known length, not a call to memcmp; the readers ask a
  // dozen keys per event. Any other encoding of it goes the way above.
  template <std::size_t N>
  void key(const char (&expected)[N]) {
    constexpr std::size_t n = N - 1;
    if constexpr (n <= 31) {
      if (bytes_.size() - pos_ > n && bytes_[pos_] == (0xA0 | n)) {
        if (std::memcmp(bytes_.data() + pos_ + 1, expected, n) != 0) mismatch();
        pos_ += n + 1;
        return;
      }
    }
    key(std::string_view(expected, n));
  }

  // Any integer, as a signed 64-bit value.
  std::int64_t integer() {
    const std::uint8_t b = take();
    if (b < 0x80) return b;
    if (b >= 0xE0) return static_cast<std::int8_t>(b);
    switch (b) {
      case 0xCC: return big_endian<std::uint8_t>();
      case 0xCD: return big_endian<std::uint16_t>();
      case 0xCE: return big_endian<std::uint32_t>();
      case 0xCF: {
        const std::uint64_t v = big_endian<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) mismatch();
        return static_cast<std::int64_t>(v);
      }
      case 0xD0: return static_cast<std::int8_t>(big_endian<std::uint8_t>());
      case 0xD1: return static_cast<std::int16_t>(big_endian<std::uint16_t>());
      case 0xD2: return static_cast<std::int32_t>(big_endian<std::uint32_t>());
      case 0xD3: return static_cast<std::int64_t>(big_endian<std::uint64_t>());
      default: mismatch();
    }
  }
  int int32() {
    const std::int64_t v = integer();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) mismatch();
    return static_cast<int>(v);
  }

  // A float32 or float64 only.
  double float_value() {
    const std::uint8_t b = take();
    if (b == 0xCA) return static_cast<double>(std::bit_cast<float>(big_endian<std::uint32_t>()));
    if (b == 0xCB) return std::bit_cast<double>(big_endian<std::uint64_t>());
    mismatch();
  }

  // A float or an integer (MsgpackWriter::whole_or_float_exact), nothing else.
  double whole_or_float() {
    if (next_is_float()) return float_value();
    return static_cast<double>(integer());
  }

  // A number of any form, or one of the tokens "nan", "inf", "-inf".
  double number() {
    const std::uint8_t b = peek();
    if (b == 0xCA) {
      ++pos_;
      return static_cast<double>(std::bit_cast<float>(big_endian<std::uint32_t>()));
    }
    if (b == 0xCB) {
      ++pos_;
      return std::bit_cast<double>(big_endian<std::uint64_t>());
    }
    if ((b & 0xE0) == 0xA0 || b == 0xD9) {
      const std::string_view s = string();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      mismatch();
    }
    if (b == 0xCF) {  // as nlohmann reads it: an unsigned 64-bit number
      ++pos_;
      return static_cast<double>(big_endian<std::uint64_t>());
    }
    return static_cast<double>(integer());
  }

  // Steps over one whole value of any type. A loop over the values still to step over,
  // a container's elements counted in as its header is read, rather than a call per
  // value: the store's readers skip whole payloads this way (decode_event_header), and
  // the recursion was most of their time.
  void skip() {
    std::size_t values = 1;
    while (values > 0) {
      --values;
      const std::uint8_t b = take();
      if (b < 0x80 || b >= 0xE0 || b == 0xC0 || b == 0xC2 || b == 0xC3) continue;
      if ((b & 0xF0) == 0x80) {
        values += 2 * static_cast<std::size_t>(b & 0x0F);
        continue;
      }
      if ((b & 0xF0) == 0x90) {
        values += b & 0x0F;
        continue;
      }
      if ((b & 0xE0) == 0xA0) {
        advance(b & 0x1F);
        continue;
      }
      switch (b) {
        case 0xCC: case 0xD0: advance(1); break;
        case 0xCD: case 0xD1: advance(2); break;
        case 0xCE: case 0xD2: case 0xCA: advance(4); break;
        case 0xCF: case 0xD3: case 0xCB: advance(8); break;
        case 0xD9: advance(big_endian<std::uint8_t>()); break;
        case 0xDA: advance(big_endian<std::uint16_t>()); break;
        case 0xDB: advance(big_endian<std::uint32_t>()); break;
        case 0xDC: values += big_endian<std::uint16_t>(); break;
        case 0xDD: values += big_endian<std::uint32_t>(); break;
        case 0xDE: values += 2 * static_cast<std::size_t>(big_endian<std::uint16_t>()); break;
        case 0xDF: values += 2 * static_cast<std::size_t>(big_endian<std::uint32_t>()); break;
        default: mismatch();  // bin, ext: no codec writes them
      }
    }
  }

 private:
  // Out of line, so that the checks that call it stay small enough to inline.
  [[noreturn, gnu::noinline, gnu::cold]] static void mismatch() { throw MsgpackMismatch(); }
  void need(std::size_t n) const {
    if (bytes_.size() - pos_ < n) [[unlikely]] mismatch();
  }
  std::uint8_t peek() const {
    need(1);
    return bytes_[pos_];
  }
  std::uint8_t take() {
    need(1);
    return bytes_[pos_++];
  }
  void advance(std::size_t n) {
    need(n);
    pos_ += n;
  }
  template <class U>
  U big_endian() {
    need(sizeof(U));
    U v = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) v = static_cast<U>((v << 8) | bytes_[pos_ + i]);
    pos_ += sizeof(U);
    return v;
  }
  // A count no longer than the bytes left (each element takes one at least), so that a
  // reader may size its container by it before reading the elements.
  std::size_t header(std::uint8_t fix, std::uint8_t with16, std::uint8_t with32) {
    const std::uint8_t b = take();
    std::size_t n = 0;
    if ((b & 0xF0) == fix) {
      n = b & 0x0F;
    } else if (b == with16) {
      n = big_endian<std::uint16_t>();
    } else if (b == with32) {
      n = big_endian<std::uint32_t>();
    } else {
      mismatch();
    }
    need(n);
    return n;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

}  // namespace capstan
