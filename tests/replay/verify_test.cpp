// replay/verify.* and `capstan replay verify`: a history the daemon recorded replays bit
// for bit; one altered decision is found and named.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "adapters/spawned_binary.hpp"
#include "replay/verify.hpp"
#include "replay_test_support.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"
#include "storage/store_test_support.hpp"

namespace capstan::replay {
namespace {

using namespace capstan::testing;

TEST_CASE("verify recomputes every tick event of a daemon's history and all of them match") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  auto report = verify(*store.value(), {});
  REQUIRE(report.ok());
  const VerifyReport& r = report.value();
  CHECK(r.policy == "hybrid");
  CHECK(r.start_seq == 0);
  CHECK(r.ticks_folded == 30);
  CHECK(r.ticks_compared == 30);
  CHECK(r.divergences == 0);
  CHECK(r.events_matched == r.events_compared);
  for (const std::string type : {"params_learned", "forecast", "capacity", "decision"}) {
    CAPTURE(type);
    REQUIRE(r.by_type.count(type) == 1);
    CHECK(r.by_type.at(type).compared > 0);
    CHECK(r.by_type.at(type).matched == r.by_type.at(type).compared);
  }
}

TEST_CASE("verify of a range after the snapshot folds from the snapshot and compares only the range") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  auto snapshot = actors::newest_snapshot(*store.value());
  REQUIRE(snapshot.ok());
  REQUIRE(snapshot.value().snapshot_seq > 0);
  ReplayRange range;
  range.from_seq = snapshot.value().snapshot_seq + 1;
  auto report = verify(*store.value(), range);
  REQUIRE(report.ok());
  CHECK(report.value().start_seq == snapshot.value().snapshot_seq);
  CHECK(report.value().ticks_compared == 30 - snapshot.value().last_tick);
  CHECK(report.value().ticks_folded == report.value().ticks_compared);
  CHECK(report.value().events_compared > 0);
  CHECK(report.value().all_match());
}

TEST_CASE("verify of a range that ends inside a tick folds and compares that tick whole") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  ReplayRange range;
  range.to_seq = 1;  // the first tick's `tick` event; its configuration and decisions follow it
  auto report = verify(*store.value(), range);
  REQUIRE(report.ok());
  CHECK(report.value().ticks_folded == 1);
  CHECK(report.value().ticks_compared == 1);
  CHECK(report.value().by_type.at("decision").compared == 2);
  CHECK(report.value().all_match());
}

TEST_CASE("capstan replay verify exits 0 on a recorded history and prints the counts") {
  const auto run = run_binary("replay verify --data " + recorded_history(), 60);
  INFO(run.stderr_text);
  CHECK(run.exit_status == 0);
  CHECK_THAT(run.stdout_text, Catch::Contains("OK: every recomputed event matches"));
  CHECK_THAT(run.stdout_text, Catch::Contains("decision"));
  CHECK_THAT(run.stdout_text, Catch::Contains("(100.0000%)"));
}

TEST_CASE("capstan replay verify passes across a daemon restart, from the empty fleet and from the snapshot") {
  const std::string data = test_dir("restarted");
  const std::string run = "run --clock virtual --config " + std::string(CAPSTAN_SOURCE_DIR) +
                          "/ops/examples/capstan.yaml --data-dir " + data + " --max-ticks ";
  REQUIRE(run_binary(run + "25", 120).exit_status == 0);
  const auto second = run_binary(run + "40", 120);
  REQUIRE(second.exit_status == 0);
  REQUIRE_THAT(second.stderr_text, Catch::Contains("resumed from"));
  auto verified = run_binary("replay verify --data " + data, 60);
  INFO(verified.stdout_text + verified.stderr_text);
  CHECK(verified.exit_status == 0);
  CHECK_THAT(verified.stdout_text, Catch::Contains("from the empty fleet"));
  verified = run_binary("replay verify --data " + data + " --from 800", 60);
  CHECK(verified.exit_status == 0);
  CHECK_THAT(verified.stdout_text, Catch::Contains("from the snapshot at seq"));
  std::filesystem::remove_all(data);
}

namespace {

// Rewrites the store's decisions, forecasts and capacity events up to `to_seq` in
// schema 1, as builds before their compact layouts wrote them; returns how many.
std::size_t rewrite_in_schema1(const std::string& dir, std::uint64_t to_seq) {
  std::vector<std::pair<std::string, std::string>> values;
  {
    auto store = storage::EventStore::open_read_only(dir);
    REQUIRE(store.ok());
    storage::EventFilter filter;
    filter.to_seq = to_seq;
    auto read = store.value()->for_each_value(filter, [&](std::uint64_t seq, std::string_view value) {
      if (storage::payload_schema(std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size())) != 2) return true;
      auto event = storage::decode_event_value(seq, value);
      REQUIRE(event.ok());
      std::vector<std::uint8_t> schema1;
      storage::write_event_value(event.value(), schema1, 1);
      values.emplace_back(seq_key(seq), std::string(schema1.begin(), schema1.end()));
      return true;
    });
    REQUIRE(read.ok());
  }
  REQUIRE(put_raw(dir, "events", values));
  return values.size();
}

}  // namespace

TEST_CASE("a history whose decisions, forecasts and capacity events are stored in schema 1 verifies, whole or from halfway") {
  // As a build before the compact layouts wrote it, or as such a build started and this
  // one continued: verify writes each recomputed event in the recorded one's layout. The
  // history is this build's own, rewritten, so that the check is of the layouts alone: a
  // store an older build wrote (tests/data/stores/) diverges where the policies have
  // changed since, as it should.
  for (const bool halfway : {false, true}) {
    CAPTURE(halfway);
    const std::string data = test_dir(halfway ? "schema1_half" : "schema1");
    std::filesystem::copy(recorded_history(), data);
    std::uint64_t last = 0;
    {
      auto store = storage::EventStore::open_read_only(data);
      REQUIRE(store.ok());
      last = store.value()->last_sequence();
    }
    const std::size_t rewritten = rewrite_in_schema1(data, halfway ? last / 2 : last);
    CHECK(rewritten > 30);
    const auto verified = run_binary("replay verify --data " + data, 60);
    INFO(verified.stdout_text + verified.stderr_text);
    CHECK(verified.exit_status == 0);
    CHECK_THAT(verified.stdout_text, Catch::Contains("OK: every recomputed event matches"));
    // What was verified held decisions of both layouts (halfway) or of schema 1 only.
    auto store = storage::EventStore::open_read_only(data);
    REQUIRE(store.ok());
    std::map<int, std::size_t> decisions_by_schema;
    auto read = store.value()->for_each_value({}, [&](std::uint64_t seq, std::string_view value) {
      auto header = storage::decode_event_header(seq, value);
      REQUIRE(header.ok());
      if (header.value().type == "decision") {
        ++decisions_by_schema[storage::payload_schema(std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size()))];
      }
      return true;
    });
    REQUIRE(read.ok());
    CHECK(decisions_by_schema[1] > 0);
    CHECK((decisions_by_schema[2] > 0) == halfway);
    std::filesystem::remove_all(data);
  }
}

TEST_CASE("timeline, explain and export read a store main at 128590d wrote, and this build resumes on it") {
  // Its decisions are schema 1's objects with their sentences (tests/data/stores/README.md).
  const std::string data = test_dir("main_128590d");
  std::filesystem::copy(std::string(CAPSTAN_SOURCE_DIR) + "/tests/data/stores/main-128590d", data);
  for (const char* command : {"replay timeline --format json", "replay explain --at 720 --model sim/meta-llama/Llama-2-70b-hf"}) {
    const auto shown = run_binary(std::string(command) + " --data " + data, 60);
    INFO(command << ": " << shown.stderr_text);
    CHECK(shown.exit_status == 0);
    CHECK_THAT(shown.stdout_text, Catch::Contains("hold at 7, wanted 5: last change 120 s ago, scale-down cooldown 300 s"));
  }
  const auto exported = run_binary("replay export --out - --data " + data, 60);
  CHECK(exported.exit_status == 0);
  CHECK_THAT(exported.stdout_text, Catch::Contains("\"text\":\"hold at 7, wanted 5: last change 120 s ago"));
  // Resumed by this build to the trace's end: five more ticks, their events in the compact
  // layouts beside the older ones, and all of them read.
  const auto resumed = run_binary("run --clock virtual --config " + std::string(CAPSTAN_SOURCE_DIR) +
                                      "/ops/examples/capstan.yaml --data-dir " + data + " --max-ticks 40",
                                  120);
  REQUIRE(resumed.exit_status == 0);
  REQUIRE_THAT(resumed.stderr_text, Catch::Contains("resumed from"));
  const auto timeline = run_binary("replay timeline --format json --data " + data, 60);
  CHECK(timeline.exit_status == 0);
  CHECK_THAT(timeline.stderr_text + timeline.stdout_text, Catch::Contains("60 decisions"));
  std::filesystem::remove_all(data);
}

TEST_CASE("capstan replay verify exits 1 naming the altered decision with both values") {
  const std::string copy = test_dir("altered");
  std::uint64_t altered = 0;
  int n = 0;
  copy_store(recorded_history(), copy, [&](storage::Event& e) {
    auto* t = std::get_if<TickEvent>(&e.payload);
    auto* d = t ? std::get_if<DecisionMade>(t) : nullptr;
    if (d == nullptr || ++n != 25) return;
    d->decision.target_replicas += 1;  // the 25th decision: one replica more than was decided
    altered = e.seq;
  });
  REQUIRE(altered > 0);
  const auto run = run_binary("replay verify --data " + copy, 60);
  std::filesystem::remove_all(copy);
  INFO(run.stdout_text + run.stderr_text);
  CHECK(run.exit_status == 1);
  CHECK_THAT(run.stdout_text, Catch::Contains("DIVERGED: 1 events differ"));
  CHECK_THAT(run.stdout_text, Catch::Contains("seq " + std::to_string(altered) + "  "));
  CHECK_THAT(run.stdout_text, Catch::Contains("  decision  sim/meta-llama/Llama-2-70b-hf/"));
  CHECK_THAT(run.stdout_text, Catch::Contains("recorded:   {"));
  CHECK_THAT(run.stdout_text, Catch::Contains("recomputed: {"));
}

TEST_CASE("verify finds a learned parameter recorded one bit off, compared as stored bytes on two threads") {
  const std::string copy = test_dir("one_bit");
  std::uint64_t altered = 0;
  int n = 0;
  copy_store(recorded_history(), copy, [&](storage::Event& e) {
    auto* t = std::get_if<TickEvent>(&e.payload);
    auto* p = t ? std::get_if<ParamsLearned>(t) : nullptr;
    if (p == nullptr || ++n != 5) return;
    p->covariance[4] = std::nextafter(p->covariance[4], HUGE_VAL);  // the last bit of one covariance entry
    altered = e.seq;
  });
  REQUIRE(altered > 0);
  auto store = storage::EventStore::open_read_only(copy);
  REQUIRE(store.ok());
  auto report = verify(*store.value(), {});
  REQUIRE(report.ok());
  const VerifyReport& r = report.value();
  CHECK(r.ticks_folded == 30);
  CHECK(r.divergences == 1);
  CHECK(r.events_matched + 1 == r.events_compared);
  CHECK(r.by_type.at("params_learned").matched + 1 == r.by_type.at("params_learned").compared);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].seq == altered);
  CHECK(r.first[0].type == "params_learned");
  CHECK(r.first[0].recorded != r.first[0].recomputed);
  store.value().reset();
  std::filesystem::remove_all(copy);
}

TEST_CASE("capstan replay verify names a bad flag with exit status 2") {
  auto run = run_binary("replay verify --data " + test_dir("absent"), 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--data: no capstan event store"));
  run = run_binary("replay verify --data " + recorded_history() + " --from yesterday", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--from: 'yesterday' is not a time"));
  run = run_binary("replay verify --data " + recorded_history() + " --from-seq 9 --to-seq 3", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--from-seq 9 is after --to-seq 3"));
  run = run_binary("replay verify --data " + recorded_history() + " --from-seq 100000", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("no recorded tick starts in the range"));
}

// Every file of a directory with its size and modification time.
std::map<std::string, std::pair<std::uintmax_t, std::filesystem::file_time_type>> listing(const std::string& dir) {
  std::map<std::string, std::pair<std::uintmax_t, std::filesystem::file_time_type>> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) out[entry.path().string()] = {entry.file_size(), entry.last_write_time()};
  return out;
}

TEST_CASE("no replay command writes into the store's directory") {
  const std::string data = recorded_history();
  const auto before = listing(data);
  const std::string out = test_dir("untouched") + ".html";
  for (const std::string& command :
       {"verify --data " + data, "timeline --data " + data, "what-if --data " + data + " --policy erlang",
        "explain --data " + data + " --at 600 --model sim/meta-llama/Llama-2-70b-hf", "report --data " + data + " --out " + out}) {
    CAPTURE(command);
    CHECK(run_binary("replay " + command, 60).exit_status == 0);
  }
  std::filesystem::remove(out);
  CHECK(listing(data) == before);
}

TEST_CASE("replay verify and timeline read the store of a daemon that is running, and leave it running") {
  const std::string data = test_dir("live");
  // Wall clock 100x: a 30 s tick every 0.3 s; each tick prints a line.
  SpawnedBinary daemon({"run", "--config", std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/capstan.yaml", "--clock",
                        "wall", "--speedup", "100", "--data-dir", data});
  REQUIRE(daemon.started());
  for (int lines = 0; lines < 5; ++lines) REQUIRE_FALSE(daemon.read_line(std::chrono::seconds(20)).empty());
  const auto verified = run_binary("replay verify --data " + data, 60);
  INFO(verified.stdout_text + verified.stderr_text);
  CHECK(verified.exit_status == 0);
  CHECK_THAT(verified.stdout_text, Catch::Contains("OK: every recomputed event matches"));
  const auto timeline = run_binary("replay timeline --data " + data + " --format csv", 60);
  CHECK(timeline.exit_status == 0);
  CHECK_FALSE(daemon.read_line(std::chrono::seconds(20)).empty());  // still ticking
  CHECK(daemon.terminate() == 0);
  std::filesystem::remove_all(data);
}

}  // namespace
}  // namespace capstan::replay
