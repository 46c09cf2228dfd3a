#include "storage/event_store.hpp"

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <rocksdb/db.h>  // a foreign database and raw writes

#include "storage/store_test_support.hpp"

namespace capstan::storage {
namespace {

using namespace capstan::testing;

std::unique_ptr<EventStore> open_store(const std::string& dir, bool sync = true) {
  auto store = EventStore::open(dir, {sync, "0.1.0-test", 1234.5});
  INFO((store ? std::string() : store.error().message));
  REQUIRE(store.ok());
  return std::move(store).value();
}

std::vector<std::uint64_t> seqs(const EventStore& store, const EventFilter& filter = {}) {
  std::vector<std::uint64_t> out;
  const auto ran = store.for_each(filter, [&](const Event& e) {
    out.push_back(e.seq);
    return true;
  });
  INFO((ran ? std::string() : ran.error().message));
  REQUIRE(ran.ok());
  return out;
}

std::vector<std::uint64_t> range(std::uint64_t from, std::uint64_t to) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = from; s <= to; ++s) out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("a new store records its schema version and creation, and starts at sequence 0") {
  ScratchDir dir;
  auto store = open_store(dir.sub("data"));
  const Metadata meta = store->metadata();
  CHECK(meta.schema == kStoreSchema);
  CHECK(meta.last_seq == 0);
  CHECK(meta.capstan_version == "0.1.0-test");
  CHECK(meta.created_at_s == 1234.5);
  CHECK(store->last_sequence() == 0);
  CHECK(seqs(*store).empty());
}

TEST_CASE("every payload type is stored and read back in sequence order with its seq set") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  const std::vector<Event> written = one_of_each_event();
  const auto appended = store->append(written);
  REQUIRE(appended.ok());
  REQUIRE(appended->size() == written.size());
  for (std::size_t i = 0; i < written.size(); ++i) CHECK((*appended)[i].seq == i + 1);
  std::vector<std::string> read_back;
  REQUIRE(store->for_each({}, [&](const Event& e) {
    read_back.push_back(encode_event_value(e));
    return true;
  }).ok());
  REQUIRE(read_back.size() == written.size());
  for (std::size_t i = 0; i < written.size(); ++i) CHECK(read_back[i] == encode_event_value(written[i]));
}

TEST_CASE("reopening keeps the sequence contiguous: no gap and no reuse") {
  ScratchDir dir;
  {
    auto store = open_store(dir.path());
    REQUIRE(store->append({decision_event(kLlama, 1), decision_event(kQwen, 1)}).ok());
    REQUIRE(store->append({decision_event(kLlama, 2)}).ok());
  }
  {
    auto store = open_store(dir.path());
    CHECK(store->last_sequence() == 3);
    CHECK(store->metadata().created_at_s == 1234.5);
    const auto appended = store->append({decision_event(kLlama, 3), decision_event(kQwen, 3)});
    REQUIRE(appended.ok());
    CHECK(appended->front().seq == 4);
    CHECK(appended->back().seq == 5);
  }
  auto store = open_store(dir.path());
  CHECK(seqs(*store) == range(1, 5));
}

TEST_CASE("an append is all or nothing: a refused batch leaves no event and no sequence behind") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  REQUIRE(store->append({decision_event(kLlama, 10)}).ok());

  SECTION("an event out of time order") {
    const auto refused = store->append({decision_event(kLlama, 11), decision_event(kLlama, 12), decision_event(kLlama, 9)});
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error().message, Catch::Contains("event 4 (decision) time_s must be finite and not before 12"));
  }
  SECTION("a snapshot with a bad scope after good events") {
    const auto refused = store->append({decision_event(kLlama, 11), decision_event(kLlama, 12)},
                                       {{"fleet", 0, 12, "ok"}, {std::string("a\0b", 3), 0, 12, "bad"}});
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error().message, Catch::Contains("snapshot scope must be a non-empty name without NUL"));
  }
  CHECK(store->last_sequence() == 1);
  CHECK(seqs(*store) == std::vector<std::uint64_t>{1});
  const auto snapshots = store->latest_snapshots();
  REQUIRE(snapshots.ok());
  CHECK(snapshots->empty());
  const auto next = store->append({decision_event(kLlama, 11)});
  REQUIRE(next.ok());
  CHECK(next->front().seq == 2);
}

TEST_CASE("a read-only store refuses to append or remove") {
  ScratchDir dir;
  { REQUIRE(open_store(dir.path())->append({decision_event(kLlama, 1)}).ok()); }
  auto reader = EventStore::open_read_only(dir.path());
  REQUIRE(reader.ok());
  const auto append = (*reader)->append({decision_event(kLlama, 2)});
  REQUIRE_FALSE(append.ok());
  CHECK_THAT(append.error().message, Catch::Contains("read-only"));
  REQUIRE_FALSE((*reader)->retain({1, 0, 100}).ok());
}

TEST_CASE("the newest snapshot of each scope is returned, and a snapshot seq of 0 means the append's last event") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  REQUIRE(store->append({decision_event(kLlama, 1), decision_event(kQwen, 1)},
                        {{"fleet", 0, 1, "fleet@2"}, {snapshot_scope(kLlama), 1, 1, "llama@1"}})
              .ok());
  REQUIRE(store->append({decision_event(kLlama, 2)}, {{snapshot_scope(kLlama), 0, 2, "llama@3"}}).ok());
  REQUIRE(store->append({decision_event(kQwen, 3)}, {{snapshot_scope(kQwen), 0, 3, std::string("q\0wen@4", 7)}}).ok());
  REQUIRE(store->append({decision_event(kQwen, 4)}, {{"fleet", 0, 4, "fleet@5"}}).ok());
  // A scope that is a prefix of another's must not hide it.
  REQUIRE(store->append({decision_event(kQwen, 5)}, {{"prod/qwen-2", 0, 5, "qwen2@6"}}).ok());

  const auto latest = store->latest_snapshots();
  REQUIRE(latest.ok());
  REQUIRE(latest->size() == 4);
  CHECK((*latest)[0].scope == "fleet");
  CHECK((*latest)[0].seq == 5);
  CHECK((*latest)[0].bytes == "fleet@5");
  CHECK((*latest)[1].scope == "prod/meta-llama/Llama-3.1-8B");
  CHECK((*latest)[1].seq == 3);
  CHECK((*latest)[1].time_s == 2);
  CHECK((*latest)[1].bytes == "llama@3");
  CHECK((*latest)[2].scope == "prod/qwen");
  CHECK((*latest)[2].bytes == std::string("q\0wen@4", 7));
  CHECK((*latest)[3].scope == "prod/qwen-2");
  CHECK((*latest)[3].seq == 6);
}

TEST_CASE("a snapshot of a state later than the append's last event is refused") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  const auto refused = store->append({decision_event(kLlama, 1)}, {{"fleet", 2, 1, "x"}});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("snapshot of 'fleet' seq must be at most 1"));
}

TEST_CASE("filters select by seq range, time range, model and type") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  // Three ticks at t = 30, 60, 90: per tick a tick record, then one decision per model.
  for (int tick = 1; tick <= 3; ++tick) {
    const double t = 30.0 * tick;
    REQUIRE(store->append({{0, t, TickStarted{static_cast<std::uint64_t>(tick), t, 30}}, decision_event(kLlama, t),
                           decision_event(kQwen, t)})
                .ok());
  }
  CHECK(seqs(*store) == range(1, 9));
  CHECK(seqs(*store, {.from_seq = 4, .to_seq = 6}) == range(4, 6));
  CHECK(seqs(*store, {.from_seq = 8}) == range(8, 9));
  CHECK(seqs(*store, {.from_seq = 0, .to_seq = 2}) == range(1, 2));
  CHECK(seqs(*store, {.from_seq = 7, .to_seq = 3}).empty());
  CHECK(seqs(*store, {.from_time_s = 60.0}) == range(4, 9));
  CHECK(seqs(*store, {.from_time_s = 31.0, .to_time_s = 60.0}) == range(4, 6));
  CHECK(seqs(*store, {.to_time_s = 59.9}) == range(1, 3));
  CHECK(seqs(*store, {.from_time_s = 91.0}).empty());
  CHECK(seqs(*store, {.model = kQwen}) == std::vector<std::uint64_t>{3, 6, 9});
  CHECK(seqs(*store, {.type = "tick"}) == std::vector<std::uint64_t>{1, 4, 7});
  CHECK(seqs(*store, {.from_seq = 2, .from_time_s = 60.0, .model = kLlama, .type = "decision"}) ==
        std::vector<std::uint64_t>{5, 8});
  CHECK(seqs(*store, {.model = ModelKey{"prod", "absent"}}).empty());

  std::vector<std::uint64_t> first_two;
  const auto stopped = store->for_each({}, [&](const Event& e) {
    first_two.push_back(e.seq);
    return first_two.size() < 2;
  });
  REQUIRE(stopped.ok());
  CHECK_FALSE(*stopped);
  CHECK(first_two == range(1, 2));

  const auto nan_time = store->for_each({.from_time_s = kNaN}, [](const Event&) { return true; });
  REQUIRE_FALSE(nan_time.ok());
  CHECK_THAT(nan_time.error().message, Catch::Contains("from_time_s must be a number"));
}

TEST_CASE("retention removes old events by age and size but never one after the oldest newest snapshot") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  // 10 ticks of 2 events at t = 0, 10, ..., 90; the fleet snapshot is at seq 14, the
  // llama snapshot at seq 8 (an older one of llama at seq 2).
  std::vector<std::uint64_t> stored_bytes;  // per event, key and value
  for (int tick = 0; tick < 10; ++tick) {
    const double t = 10.0 * tick;
    std::vector<Snapshot> snapshots;
    if (tick == 0) snapshots.push_back({snapshot_scope(kLlama), 0, t, "llama@2"});
    if (tick == 3) snapshots.push_back({snapshot_scope(kLlama), 0, t, "llama@8"});
    if (tick == 6) snapshots.push_back({"fleet", 0, t, "fleet@14"});
    const auto appended = store->append({decision_event(kLlama, t), decision_event(kQwen, t)}, snapshots);
    REQUIRE(appended.ok());
    for (const Event& e : *appended) stored_bytes.push_back(8 + encode_event_value(e).size());
  }

  SECTION("by age, capped at the oldest of the newest snapshots") {
    const auto removed = store->retain({.max_age_s = 20, .now_s = 90});  // would remove t < 70: seq 1..14
    REQUIRE(removed.ok());
    CHECK(*removed == 8);
    CHECK(seqs(*store) == range(9, 20));
  }
  SECTION("by age, inside what the snapshots allow") {
    const auto removed = store->retain({.max_age_s = 60, .now_s = 90});  // t < 30: seq 1..6
    REQUIRE(removed.ok());
    CHECK(*removed == 6);
    CHECK(seqs(*store) == range(7, 20));
  }
  SECTION("by size") {
    std::uint64_t newest_17 = 0;
    for (std::size_t i = 3; i < stored_bytes.size(); ++i) newest_17 += stored_bytes[i];
    const auto removed = store->retain({.max_bytes = newest_17});  // remove 1..3
    REQUIRE(removed.ok());
    CHECK(*removed == 3);
    CHECK(seqs(*store) == range(4, 20));
  }
  // The newest snapshots stay.
  const auto latest = store->latest_snapshots();
  REQUIRE(latest.ok());
  REQUIRE(latest->size() == 2);
  CHECK((*latest)[1].bytes == "llama@8");
  // The sequence goes on after removal and after a reopen.
  store.reset();
  store = open_store(dir.path());
  const auto appended = store->append({decision_event(kLlama, 100)});
  REQUIRE(appended.ok());
  CHECK(appended->front().seq == 21);
}

TEST_CASE("retention removes nothing while there is no snapshot to restart from") {
  ScratchDir dir;
  auto store = open_store(dir.path());
  for (int t = 0; t < 5; ++t) REQUIRE(store->append({decision_event(kLlama, t)}).ok());
  const auto removed = store->retain({.max_age_s = 1, .max_bytes = 1, .now_s = 1000});
  REQUIRE(removed.ok());
  CHECK(*removed == 0);
  CHECK(seqs(*store) == range(1, 5));
  const auto bad = store->retain({.max_age_s = -1, .now_s = 0});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("max_age_s must be a finite number >= 0, got -1"));
}

TEST_CASE("a reader opened while the writer is open sees the writer's durable events") {
  ScratchDir dir;
  auto writer = open_store(dir.path());
  REQUIRE(writer->append({decision_event(kLlama, 1), decision_event(kQwen, 1)}, {{"fleet", 0, 1, "f"}}).ok());
  REQUIRE(writer->append({decision_event(kLlama, 2)}).ok());

  auto reader = EventStore::open_read_only(dir.path());
  INFO((reader ? std::string() : reader.error().message));
  REQUIRE(reader.ok());
  CHECK((*reader)->last_sequence() == 3);
  CHECK(seqs(**reader) == range(1, 3));
  const auto snapshots = (*reader)->latest_snapshots();
  REQUIRE(snapshots.ok());
  CHECK(snapshots->size() == 1);

  // The writer goes on; a reader opened later sees that too.
  REQUIRE(writer->append({decision_event(kLlama, 3)}).ok());
  auto later = EventStore::open_read_only(dir.path());
  REQUIRE(later.ok());
  CHECK(seqs(**later) == range(1, 4));

  // One kept open sees it after a refresh, and only then.
  CHECK(seqs(**reader) == range(1, 3));
  CHECK_FALSE((*reader)->refresh().has_value());
  CHECK((*reader)->last_sequence() == 4);
  CHECK(seqs(**reader) == range(1, 4));
  CHECK_FALSE(writer->refresh().has_value());  // the writer's own store: nothing to do
}

TEST_CASE("a corrupted stored value gives an error naming its seq, not a crash") {
  ScratchDir dir;
  { REQUIRE(open_store(dir.path())->append({decision_event(kLlama, 1), decision_event(kLlama, 2), decision_event(kLlama, 3)}).ok()); }
  REQUIRE(put_raw(dir.path(), "events", seq_key(2), "\x85\xA5model\xC0\xA7payload"));
  auto store = open_store(dir.path());
  std::vector<std::uint64_t> seen;
  const auto ran = store->for_each({}, [&](const Event& e) {
    seen.push_back(e.seq);
    return true;
  });
  REQUIRE_FALSE(ran.ok());
  CHECK_THAT(ran.error().message, Catch::StartsWith("event 2"));
  CHECK(seen == std::vector<std::uint64_t>{1});
  const auto filtered = store->for_each({.type = "decision"}, [](const Event&) { return true; });
  REQUIRE_FALSE(filtered.ok());
  CHECK_THAT(filtered.error().message, Catch::StartsWith("event 2"));
}

TEST_CASE("a store of an unknown schema version is refused at open naming the schema and the path") {
  ScratchDir dir;
  { open_store(dir.path()); }
  REQUIRE(put_raw(dir.path(), "metadata", "schema", "2"));
  const auto refused = EventStore::open(dir.path(), {});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains(dir.path() + ": store schema 2 is not a version this build reads (1)"));
  const auto reader = EventStore::open_read_only(dir.path());
  REQUIRE_FALSE(reader.ok());
  CHECK_THAT(reader.error().message, Catch::Contains("store schema 2"));
}

TEST_CASE("a missing directory or one that is not a capstan store is refused by name") {
  ScratchDir dir;
  auto missing = EventStore::open_read_only(dir.sub("nothing-here"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "no capstan event store at " + dir.sub("nothing-here") + ": no such directory");

  auto empty = EventStore::open_read_only(dir.path());
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message == dir.path() + " is not a capstan event store (no RocksDB database in it)");

  // A RocksDB database of someone else's.
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* db = nullptr;
  REQUIRE(rocksdb::DB::Open(options, dir.sub("other"), &db).ok());
  delete db;
  const std::string foreign = dir.sub("other") + " is not a capstan event store (no 'events' column family)";
  const auto writer = EventStore::open(dir.sub("other"), {});
  REQUIRE_FALSE(writer.ok());
  CHECK(writer.error().message == foreign);
  const auto reader = EventStore::open_read_only(dir.sub("other"));
  REQUIRE_FALSE(reader.ok());
  CHECK(reader.error().message == foreign);
}

}  // namespace capstan::storage
