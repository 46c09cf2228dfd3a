// actors/resume.*: the fold of a recorded history gives the same ticks, events and state
// when the store is read ahead on a thread of its own and each tick's models run in
// another order, as `replay verify` folds; and it stops with the error, not a hang,
// when a tick cannot be folded while the reader is ahead.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "actors/resume.hpp"
#include "daemon_fixture.hpp"
#include "domain/codec/state_codec.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"
#include "storage/store_test_support.hpp"

namespace capstan {
namespace {

using testing::TempDir;

constexpr int kTicks = 12;  // more than the fold reads ahead, so that the reader waits for room

const std::string& recorded_history() {
  static const TempDir dir("resume_history");
  static const bool recorded = [] {
    actors::DaemonOptions options;
    options.max_ticks = kTicks;
    options.fleet.snapshot_every_ticks = 0;
    return testing::run_example_daemon("hybrid", dir.path.string(), options).status == 0;
  }();
  REQUIRE(recorded);
  static const std::string path = dir.path.string();
  return path;
}

// Every model of a tick, last first: an order other than the input's.
void in_reverse(std::size_t count, const std::function<void(std::size_t)>& body) {
  for (std::size_t i = count; i > 0; --i) body(i - 1);
}

struct Folded {
  Result<std::uint64_t> ticks = std::uint64_t{0};
  std::vector<std::uint64_t> tick_numbers;
  std::vector<std::uint8_t> recomputed;  // every recomputed event's stored value, in order
  std::vector<std::string> recorded;     // every recorded event's stored value, in order
  std::string state;
  std::map<VariantKey, int> awaiting;
  std::string config_policy;
};

Folded fold(const std::string& dir, const actors::FoldRange& range) {
  auto store = storage::EventStore::open_read_only(dir);
  REQUIRE(store.ok());
  auto policy = find_policy("hybrid").value();
  Folded out;
  actors::FoldStart start;
  out.ticks = actors::fold_recorded(*store.value(), *policy, start, range,
                                    [&](actors::RecordedTick& t, TickResult& r, const actors::ConfigUpdate&) {
                                      out.tick_numbers.push_back(t.tick);
                                      for (TickEvent& e : r.events)
                                        storage::write_event_value({0, t.input.now_s, std::move(e)}, out.recomputed);
                                      for (const actors::RecordedEvent& e : t.events) out.recorded.push_back(e.value);
                                    });
  out.state = encode_fleet_memory(policy->name(), start.memory).dump();
  out.awaiting = start.awaiting;
  out.config_policy = start.config ? start.config->policy : "";
  return out;
}

void check_same(const Folded& ahead, const Folded& in_line) {
  REQUIRE(ahead.ticks.ok());
  REQUIRE(in_line.ticks.ok());
  CHECK(ahead.ticks.value() == in_line.ticks.value());
  CHECK(ahead.tick_numbers == in_line.tick_numbers);
  CHECK(ahead.recomputed == in_line.recomputed);
  CHECK(ahead.recorded == in_line.recorded);
  CHECK(ahead.state == in_line.state);
  CHECK(ahead.awaiting == in_line.awaiting);
  CHECK(ahead.config_policy == in_line.config_policy);
}

actors::FoldRange read_ahead(actors::FoldRange range) {
  range.read_ahead = true;
  range.for_each_model = in_reverse;
  return range;
}

TEST_CASE("a fold that reads the store ahead and runs the models in another order gives the fold in line") {
  const Folded in_line = fold(recorded_history(), {});
  REQUIRE(in_line.ticks.ok());
  CHECK(in_line.ticks.value() == kTicks);
  CHECK_FALSE(in_line.recorded.empty());
  CHECK(in_line.config_policy == "hybrid");
  check_same(fold(recorded_history(), read_ahead({})), in_line);
}

TEST_CASE("a fold that reads ahead stops after the tick that holds the end of the range, as the fold in line does") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  actors::FoldRange range;
  range.to_seq = store.value()->last_sequence() / 2;
  const Folded in_line = fold(recorded_history(), range);
  REQUIRE(in_line.ticks.ok());
  CHECK(in_line.ticks.value() > 0);
  CHECK(in_line.ticks.value() < kTicks);
  check_same(fold(recorded_history(), read_ahead(range)), in_line);
}

TEST_CASE("a fold that reads ahead returns the error of a tick with no configuration instead of waiting for room") {
  // The history without its configuration: each config_applied is an incident instead.
  TempDir copy("resume_no_config");
  {
    auto source = storage::EventStore::open_read_only(recorded_history());
    REQUIRE(source.ok());
    std::vector<storage::Event> events;
    REQUIRE(source.value()->for_each({}, [&](const storage::Event& e) {
      events.push_back(e);
      if (std::holds_alternative<storage::ConfigApplied>(e.payload))
        events.back().payload = storage::Incident{std::nullopt, "test", "the configuration left out"};
      return true;
    }).ok());
    auto target = storage::EventStore::open(copy.path.string(), {});
    REQUIRE(target.ok());
    REQUIRE(target.value()->append(std::move(events)).ok());
  }
  for (const actors::FoldRange& range : {actors::FoldRange{}, read_ahead({})}) {
    const Folded folded = fold(copy.path.string(), range);
    REQUIRE_FALSE(folded.ticks.ok());
    CHECK_THAT(folded.ticks.error().message, Catch::Contains("has no configuration recorded before it"));
    CHECK(folded.tick_numbers.empty());
  }
}

}  // namespace
namespace {

// The store's decisions rewritten by `change` (a decoded event, and the layout to write
// it in), straight into the events' column family, as another build would have written them.
void rewrite_decisions(const std::string& dir, const std::function<int(storage::Event&)>& change) {
  std::vector<std::pair<std::string, std::string>> values;
  {
    auto store = storage::EventStore::open_read_only(dir);
    REQUIRE(store.ok());
    REQUIRE(store.value()->for_each({}, [&](const storage::Event& e) {
      if (storage::event_type(e.payload) != "decision") return true;
      storage::Event copy = e;
      const int schema = change(copy);
      std::vector<std::uint8_t> bytes;
      storage::write_event_value(copy, bytes, schema);
      values.emplace_back(testing::seq_key(e.seq), std::string(bytes.begin(), bytes.end()));
      return true;
    }).ok());
  }
  REQUIRE(testing::put_raw(dir, "events", values));
}

std::uint64_t mismatched_after_resume(const std::string& dir) {
  auto store = storage::EventStore::open_read_only(dir);
  REQUIRE(store.ok());
  auto resumed = actors::resume(*store.value(), *find_policy("hybrid").value());
  REQUIRE(resumed.ok());
  REQUIRE(resumed.value().folded_ticks == kTicks);
  return resumed.value().mismatched_decisions;
}

}  // namespace

TEST_CASE("a restart finds a recorded decision its fold decides otherwise, in the compact layout and in schema 1") {
  TempDir copy("resume_decisions");
  std::filesystem::copy(recorded_history(), copy.path);
  const std::string dir = copy.path.string();
  CHECK(mismatched_after_resume(dir) == 0);
  // As a build before the compact layout wrote them: still the same decisions.
  rewrite_decisions(dir, [](storage::Event&) { return 1; });
  CHECK(mismatched_after_resume(dir) == 0);
  // One decision of tick 7 recorded with another target, in either layout: one tick differs.
  for (const int schema : {1, 2}) {
    CAPTURE(schema);
    TempDir altered("resume_decisions_altered");
    std::filesystem::copy(recorded_history(), altered.path);
    bool done = false;
    rewrite_decisions(altered.path.string(), [&](storage::Event& e) {
      auto& d = std::get<DecisionMade>(std::get<TickEvent>(e.payload)).decision;
      if (!done && e.time_s >= 7 * 30) {
        ++d.target_replicas;
        done = true;
      }
      return schema;
    });
    CHECK(mismatched_after_resume(altered.path.string()) == 1);
  }
}

}  // namespace capstan
