// A store written before decisions' compact layout (tests/data/stores/README.md) opens
// and reads: every event decodes, and a decision, forecast or capacity event of schema 1
// written again in schema 1 gives its stored bytes, which is what `replay verify`
// compares on such a store; written in schema 2 it reads back to the same event.
#include <filesystem>
#include <span>
#include <string>

#include <catch2/catch.hpp>

#include "storage/event_store.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"
#include "storage/store_test_support.hpp"
#include "test_data.hpp"

namespace capstan::storage {
namespace {

using namespace capstan::testing;

std::span<const std::uint8_t> as_bytes(std::string_view value) {
  return {reinterpret_cast<const std::uint8_t*>(value.data()), value.size()};
}

}  // namespace

TEST_CASE("a store written by main at 128590d opens, and its schema-1 payloads read and write back to their bytes") {
  ScratchDir scratch;
  std::filesystem::copy(data_path("stores/main-128590d"), scratch.sub("store"));
  auto store = EventStore::open_read_only(scratch.sub("store"));
  REQUIRE(store.ok());
  CHECK(store.value()->last_sequence() == 223);
  std::uint64_t events = 0, decisions = 0, compacted = 0;
  auto read = store.value()->for_each_value({}, [&](std::uint64_t seq, std::string_view value) {
    auto event = decode_event_value(seq, value);
    REQUIRE(event.ok());
    ++events;
    CHECK(payload_schema(as_bytes(value)) == 1);
    const auto* tick_event = std::get_if<TickEvent>(&event.value().payload);
    if (tick_event == nullptr) return true;
    const std::string type = event_type(event.value().payload);
    CAPTURE(seq, type);
    // What `replay verify` compares on such a store: the event written in schema 1 again.
    std::vector<std::uint8_t> again;
    write_event_value(event.value(), again, 1);
    CHECK(std::string_view(reinterpret_cast<const char*>(again.data()), again.size()) == value);
    if (const auto* made = std::get_if<DecisionMade>(tick_event)) {
      ++decisions;
      CHECK_FALSE(made->decision.reason.kind().empty());
      CHECK_FALSE(made->decision.reason.text().empty());  // the sentence schema 1 stored, read as stored
    }
    if (type != "decision" && type != "forecast" && type != "capacity") return true;
    // Written in the newest layout it reads back to the same event, in under half the bytes.
    ++compacted;
    again.clear();
    write_event_value(event.value(), again);
    CHECK(payload_schema(again) == 2);
    CHECK(again.size() * 2 < value.size());
    auto compact = decode_event_value(seq, std::string_view(reinterpret_cast<const char*>(again.data()), again.size()));
    REQUIRE(compact.ok());
    std::vector<std::uint8_t> schema1_again;
    write_event_value(compact.value(), schema1_again, 1);
    CHECK(std::string_view(reinterpret_cast<const char*>(schema1_again.data()), schema1_again.size()) == value);
    return true;
  });
  REQUIRE(read.ok());
  CHECK(events == 223);
  CHECK(decisions == 50);
  CHECK(compacted > decisions);
}

}  // namespace capstan::storage
