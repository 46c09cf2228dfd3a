// `capstan replay export` through the real binary, on a store this test writes.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "adapters/run_binary.hpp"
#include "storage/event_store.hpp"
#include "storage/store_test_support.hpp"

namespace capstan::storage {
namespace {

using nlohmann::json;
using namespace capstan::testing;

// Two ticks of every payload type; returns the events as stored.
std::vector<Event> write_store(const std::string& dir) {
  auto store = EventStore::open(dir, {});
  REQUIRE(store.ok());
  std::vector<Event> all;
  for (int tick = 0; tick < 2; ++tick) {
    std::vector<Event> events = one_of_each_event();
    for (Event& e : events) e.time_s += 1000.0 * tick;
    auto appended = (*store)->append(std::move(events), {{"fleet", 0, 1000.0 * tick, "state"}});
    REQUIRE(appended.ok());
    all.insert(all.end(), appended->begin(), appended->end());
  }
  return all;
}

std::vector<json> parse_lines(const std::string& text) {
  std::vector<json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("replay export writes every stored event as one JSON line in sequence order") {
  ScratchDir dir;
  const std::vector<Event> stored = write_store(dir.sub("data"));
  const auto run = run_binary("replay export --data " + dir.sub("data") + " --out " + dir.sub("events.jsonl"), 60);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const std::vector<json> lines = parse_lines(read_file(dir.sub("events.jsonl")));
  REQUIRE(lines.size() == stored.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    INFO("line " << i);
    CHECK(lines[i] == event_to_json(stored[i]));
    CHECK(lines[i].at("seq") == i + 1);
  }
  CHECK(lines[12].at("type") == "decision");
  CHECK(lines[12].at("payload").at("decision").at("target_replicas") == 4);
  CHECK(lines[7].at("payload").at("covariance").at(0) == "nan");
  CHECK_THAT(run.stderr_text, Catch::Contains("exported 28 events"));
}

TEST_CASE("replay export filters by seq type and model and writes to standard output with --out -") {
  ScratchDir dir;
  write_store(dir.path());
  const std::string data = " --data " + dir.path() + " --out -";
  auto run = run_binary("replay export" + data + " --from-seq 3 --to-seq 5", 60);
  REQUIRE(run.exit_status == 0);
  std::vector<std::uint64_t> seqs;
  for (const json& line : parse_lines(run.stdout_text)) seqs.push_back(line.at("seq"));
  CHECK(seqs == std::vector<std::uint64_t>{3, 4, 5});

  run = run_binary("replay export" + data + " --type decision --model prod/qwen", 60);
  REQUIRE(run.exit_status == 0);
  seqs.clear();
  for (const json& line : parse_lines(run.stdout_text)) seqs.push_back(line.at("seq"));
  CHECK(seqs == std::vector<std::uint64_t>{14, 28});

  run = run_binary("replay export" + data + " --model prod/meta-llama/Llama-3.1-8B --type stage", 60);
  REQUIRE(run.exit_status == 0);
  const auto lines = parse_lines(run.stdout_text);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].at("model").at("model_id") == "meta-llama/Llama-3.1-8B");
}

TEST_CASE("replay export names a missing directory, a directory without a store and bad flags, with exit status 2") {
  ScratchDir dir;
  auto run = run_binary("replay export --data " + dir.sub("absent") + " --out -", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--data: no capstan event store at " + dir.sub("absent")));

  run = run_binary("replay export --data " + dir.path() + " --out " + dir.sub("x.jsonl"), 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains(dir.path() + " is not a capstan event store"));

  write_store(dir.sub("data"));
  const std::string data = " --data " + dir.sub("data") + " --out -";
  run = run_binary("replay export" + data + " --type decisions", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--type: 'decisions' is not an event type"));
  run = run_binary("replay export" + data + " --model qwen", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--model must be NAMESPACE/MODEL_ID, got 'qwen'"));
  run = run_binary("replay export" + data + " --from-seq 9 --to-seq 3", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--from-seq 9 is after --to-seq 3"));
  run = run_binary("replay export --out -", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--data"));
}

TEST_CASE("replay export of a store with a corrupted event fails with exit status 1 naming the event") {
  ScratchDir dir;
  {
    auto store = EventStore::open(dir.path(), {});
    REQUIRE(store.ok());
    REQUIRE((*store)->append({decision_event(kLlama, 1), decision_event(kLlama, 2)}).ok());
    // An event of a newer build's schema, as a downgrade would meet it.
    json document = encode_event_document(decision_event(kLlama, 3));
    document["schema"] = 9;
    const auto bytes = json::to_msgpack(document);
    REQUIRE((*store)->append({decision_event(kLlama, 3)}).ok());
    store.value().reset();
    REQUIRE(put_raw(dir.path(), "events", seq_key(3), std::string(bytes.begin(), bytes.end())));
  }
  const auto run = run_binary("replay export --data " + dir.path() + " --out -", 60);
  CHECK(run.exit_status == 1);
  CHECK_THAT(run.stderr_text, Catch::Contains("event 3: schema 9 is not a version this build reads (1)"));
  CHECK(parse_lines(run.stdout_text).size() == 2);
}

}  // namespace capstan::storage
