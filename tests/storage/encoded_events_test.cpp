// storage/encoded_events.hpp, and the store's append of events encoded beforehand.
#include "storage/encoded_events.hpp"

#include <catch2/catch.hpp>

#include "storage/event_store.hpp"
#include "storage/store_test_support.hpp"

namespace capstan::storage {
namespace {

using namespace capstan::testing;

std::unique_ptr<EventStore> open_store(const std::string& dir) {
  auto store = EventStore::open(dir, {true, "0.1.0-test", 0});
  REQUIRE(store.ok());
  return std::move(store).value();
}

std::vector<std::string> stored_values(const EventStore& store) {
  std::vector<std::string> out;
  REQUIRE(store.for_each_value({}, [&](std::uint64_t seq, std::string_view value) {
    out.push_back(std::to_string(seq) + " " + std::string(value));
    return true;
  }).ok());
  return out;
}

}  // namespace

TEST_CASE("events encoded beforehand hold the very values the store writes, and decode back with their seqs") {
  const std::vector<Event> events = one_of_each_event();
  const EncodedEvents encoded = encode_events(events);
  REQUIRE(encoded.size() == events.size());
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    CHECK(encoded.value(i) == encode_event_value(events[i]));
    CHECK(encoded.time_s(i) == events[i].time_s);
    bytes += encoded.value(i).size();
  }
  CHECK(encoded.bytes() == bytes);
  const auto back = encoded.decode(41);
  REQUIRE(back.ok());
  REQUIRE(back.value().size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    CHECK(back.value()[i].seq == 41 + i);
    CHECK(encode_event_value(back.value()[i]) == encode_event_value(events[i]));
  }
}

TEST_CASE("an append of runs encoded elsewhere stores what a typed append stores, numbered across the runs") {
  std::vector<Event> events = one_of_each_event();
  events.push_back(decision_event(kQwen, events.back().time_s));
  ScratchDir typed_dir, runs_dir;
  auto typed = open_store(typed_dir.path());
  REQUIRE(typed->append(events, {{"fleet", 0, 1, "state"}}).ok());

  // The same events split in three runs, one of them empty, as the fleet's batch is.
  std::vector<EncodedEvents> runs(3);
  for (std::size_t i = 0; i < events.size(); ++i) runs[i < 2 ? 0 : 2].add(events[i]);
  auto store = open_store(runs_dir.path());
  const auto first = store->append(runs, {{"fleet", 0, 1, "state"}});
  REQUIRE(first.ok());
  CHECK(first.value() == 1);
  CHECK(store->last_sequence() == events.size());
  CHECK(stored_values(*store) == stored_values(*typed));
  const auto snapshots = store->latest_snapshots();
  REQUIRE(snapshots.ok());
  REQUIRE(snapshots->size() == 1);
  CHECK(snapshots->front().seq == events.size());

  const auto next = store->append(std::vector<EncodedEvents>{encode_events({decision_event(kLlama, 1e6)})}, {});
  REQUIRE(next.ok());
  CHECK(next.value() == events.size() + 1);
}

TEST_CASE("an encoded run whose event precedes the last one's time is refused whole, naming its seq and type") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  REQUIRE(store->append({decision_event(kLlama, 10)}).ok());
  std::vector<EncodedEvents> runs(2);
  runs[0].add(decision_event(kLlama, 11));
  runs[1].add(decision_event(kLlama, 9));
  const auto refused = store->append(runs, {});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("event 3 (decision) time_s must be finite and not before 11"));
  CHECK(store->last_sequence() == 1);
}

}  // namespace capstan::storage
