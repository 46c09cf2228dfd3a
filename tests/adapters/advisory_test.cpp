// Advisory mode (issue 23, part 3) through the real binary: `capstan run --connector
// advisory` on the simulated fleet applies nothing until a person approves through the
// admin API; approvals and rejections need the bearer token, name the field of a bad
// body, and are events that a restart folds and `replay timeline` shows.
#include <catch2/catch.hpp>

#include <fstream>

#include "actors/actuator_approvals.hpp"
#include "admin_daemon.hpp"
#include "run_binary.hpp"

namespace capstan {
namespace {

using namespace std::chrono_literals;
using testing::AdminDaemon;
using testing::check_error;
using testing::HttpReply;
using testing::HttpTestConnection;
using testing::json_of;

const std::string kToken = "advisory-token";

std::string token_file(const std::string& name) {
  const auto path = testing::fresh_dir(name).string() + ".token";
  std::ofstream(path) << kToken << "\n";
  return path;
}

HttpReply call(unsigned short port, const std::string& method, const std::string& target, const std::string& body = "",
               bool with_token = true) {
  HttpTestConnection c(port);
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (with_token) req += "Authorization: Bearer " + kToken + "\r\n";
  if (method == "POST") req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  return c.send_raw(req + "\r\n" + body);
}

nlohmann::json pending(unsigned short port) {
  const HttpReply r = call(port, "GET", "/api/v1/decisions?pending=true");
  REQUIRE(r.status == 200);
  return json_of(r).at("decisions");
}

nlohmann::json events(unsigned short port, const std::string& type) {
  const HttpReply r = call(port, "GET", "/api/v1/events?limit=1000&type=" + type);
  REQUIRE(r.status == 200);
  return json_of(r).at("events");
}

// Waits (bounded) until `ready` holds.
template <class Ready>
bool eventually(Ready ready, std::chrono::seconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return ready();
}

// Reviews the oldest pending decision; a tick may supersede it first, so it tries the
// next one then. The reviewed entry, null if none could be.
nlohmann::json review_one(unsigned short port, const std::string& verb, const std::string& body) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    nlohmann::json list;
    if (!eventually([&] { return !(list = pending(port)).empty(); })) return nullptr;
    const HttpReply r = call(port, "POST", "/api/v1/decisions/" + std::to_string(list[0]["id"].get<std::uint64_t>()) +
                                               "/" + verb, body);
    if (r.status == 202) return list[0];
    check_error(r, 404);  // superseded meanwhile
  }
  return nullptr;
}

// `capstan run` in advisory mode on the virtual clock for `ticks` ticks of the example
// trace, into `dir`, with no listening port.
testing::BinaryRun advisory_run(const std::filesystem::path& dir, int ticks) {
  return testing::run_binary("run --connector advisory --clock virtual --max-ticks " + std::to_string(ticks) +
                                 " --trace " + testing::example("azure_code_15min.csv") + " --fleet " +
                                 testing::example("fleet.yaml") + " --data-dir " + dir.string() +
                                 " --admin-bind 0 --metrics-bind-address 0 --health-probe-bind-address 0",
                             120);
}

std::size_t count_reviews(const nlohmann::json& reviews, const std::string& action, std::uint64_t id) {
  std::size_t n = 0;
  for (const auto& e : reviews)
    n += e["payload"]["action"] == action && e["payload"]["decision_seq"] == id;
  return n;
}

}  // namespace

TEST_CASE("advisory: a pending decision is listed with its explanation and applied only once approved") {
  const std::string token = token_file("advisory_token");
  AdminDaemon d("advisory", {"--connector", "advisory", "--admin-token-file", token});
  d.wait_ready();
  nlohmann::json list;
  REQUIRE(eventually([&] { return !(list = pending(d.api)).empty(); }));
  const nlohmann::json& first = list[0];
  CHECK(first["id"].get<std::uint64_t>() > 0);
  CHECK(first["target_replicas"] != first["current_replicas"]);
  CHECK_FALSE(first["explanation"].get<std::string>().empty());
  CHECK(first["decision"]["target_replicas"] == first["target_replicas"]);
  CHECK(first.contains("capacity"));
  // Nothing is applied by itself.
  CHECK(events(d.api, "actuation").empty());
  CHECK(count_reviews(events(d.api, "decision_review"), "pending", first["id"]) == 1);

  const nlohmann::json approved = review_one(d.api, "approve", R"({"reason": "load test passed", "by": "alice"})");
  REQUIRE_FALSE(approved.is_null());
  const auto id = approved["id"].get<std::uint64_t>();
  // Recorded, then applied through the simulated fleet at the next tick.
  nlohmann::json actuations;
  REQUIRE(eventually([&] {
    actuations = events(d.api, "actuation");
    for (const auto& e : actuations)
      if (e["payload"]["status"] == "applied" && e["payload"]["variant"] == approved["variant"] &&
          e["payload"]["replicas"] == approved["target_replicas"])
        return true;
    return false;
  }));
  const auto reviews = events(d.api, "decision_review");
  CHECK(count_reviews(reviews, "approved", id) == 1);
  for (const auto& e : reviews)
    if (e["payload"]["action"] == "approved") {
      CHECK(e["payload"]["by"] == "alice");
      CHECK(e["payload"]["reason"] == "load test passed");
    }
  // An approved decision pends no more, and cannot be approved twice.
  for (const auto& p : pending(d.api)) CHECK(p["id"] != id);
  check_error(call(d.api, "POST", "/api/v1/decisions/" + std::to_string(id) + "/approve", R"({"reason": "again"})"), 404);

  // A rejection is recorded and applies nothing (the fleet's `acknowledged` of the
  // approved target may still come: only requests to the connector count).
  const auto requested = [&] {
    std::size_t n = 0;
    for (const auto& e : events(d.api, "actuation")) n += e["payload"]["status"] == "requested";
    return n;
  };
  const std::size_t applied_before = requested();
  const nlohmann::json rejected = review_one(d.api, "reject", R"({"reason": "budget freeze", "by": "bob"})");
  REQUIRE_FALSE(rejected.is_null());
  const auto rejected_id = rejected["id"].get<std::uint64_t>();
  REQUIRE(eventually([&] { return count_reviews(events(d.api, "decision_review"), "rejected", rejected_id) == 1; }));
  const auto tick = [&] { return json_of(call(d.api, "GET", "/api/v1/models"))["models"][0]["tick"].get<std::uint64_t>(); };
  const std::uint64_t rejected_at = tick();
  REQUIRE(eventually([&] { return tick() >= rejected_at + 3; }));
  CHECK(requested() == applied_before);
  std::filesystem::remove(token);
}

TEST_CASE("advisory: reviews refuse an unknown id, a malformed body and a request without the token") {
  const std::string token = token_file("advisory_bad_token");
  AdminDaemon d("advisory_bad", {"--connector", "advisory", "--admin-token-file", token});
  d.wait_ready();
  const std::string ok = R"({"reason": "fine"})";
  check_error(call(d.api, "POST", "/api/v1/decisions/999999999/approve", ok), 404);
  check_error(call(d.api, "POST", "/api/v1/decisions/abc/reject", ok), 404);
  check_error(call(d.api, "POST", "/api/v1/decisions/1/approve", ok, /*with_token=*/false), 401);
  for (const auto& [body, field] : {std::pair{std::string("{"), std::string("body")},
                                    std::pair{std::string("[]"), std::string("body")},
                                    std::pair{std::string(R"({"by": "alice"})"), std::string("reason")},
                                    std::pair{std::string(R"({"reason": "  "})"), std::string("reason")},
                                    std::pair{std::string(R"({"reason": 3})"), std::string("reason")},
                                    std::pair{std::string(R"({"reason": "x", "by": ""})"), std::string("by")},
                                    std::pair{std::string(R"({"reason": "x", "who": "me"})"), std::string("who")}}) {
    INFO(body);
    const HttpReply r = call(d.api, "POST", "/api/v1/decisions/1/approve", body);
    check_error(r, 400);
    CHECK(json_of(r)["error"]["message"].get<std::string>().find(field) != std::string::npos);
  }
  check_error(call(d.api, "GET", "/api/v1/decisions?pending=maybe"), 400);
  check_error(call(d.api, "GET", "/api/v1/approve"), 404);
  // Having asked the actuator, the daemon still stops on SIGTERM (a scoped actor on the
  // admin thread once kept the actor system from shutting down).
  CHECK(pending(d.api).is_array());
  CHECK(d.process.terminate() == 0);
  std::filesystem::remove(token);
}

TEST_CASE("advisory: without a bearer token the reviews are refused with 403, and a daemon that actuates answers 409") {
  AdminDaemon advisory("advisory_open", {"--connector", "advisory"});
  advisory.wait_ready();
  const HttpReply refused = call(advisory.api, "POST", "/api/v1/decisions/1/approve", R"({"reason": "x"})", false);
  check_error(refused, 403);
  CHECK(json_of(refused)["error"]["message"].get<std::string>().find("token") != std::string::npos);
  CHECK(call(advisory.api, "GET", "/api/v1/decisions?pending=true", "", false).status == 200);

  AdminDaemon acting("advisory_sim");
  acting.wait_ready();
  check_error(call(acting.api, "GET", "/api/v1/decisions?pending=true", "", false), 409);
}

// Nothing changes until a person approves, so the model must not plan as if it had: an
// unapproved scale-up that then counted as a change held the next scale-downs for the
// cooldown, and a decision pending approval flipped to a hold and back. The fold of a
// restart and replay settle the same way (the configuration records advisory mode).
TEST_CASE("advisory: an unapproved change starts no cooldown, and replay verify reproduces the advisory run") {
  const auto dir = testing::fresh_dir("advisory_unapplied");
  const auto run = advisory_run(dir, 40);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const auto timeline = testing::run_binary("replay timeline --data " + dir.string() + " --type decision --format json", 60);
  REQUIRE(timeline.exit_status == 0);
  std::size_t changes = 0, cooldowns = 0;
  std::stringstream lines(timeline.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    changes += j["target"] != j["current"];
    cooldowns += j["reason_text"].get<std::string>().find("scale-down cooldown") != std::string::npos;
  }
  CHECK(changes > 0);
  CHECK(cooldowns == 0);
  const auto verify = testing::run_binary("replay verify --data " + dir.string(), 120);
  INFO(verify.stdout_text);
  CHECK(verify.exit_status == 0);
  std::filesystem::remove_all(dir);
}

// A person's review is recorded at the next tick; a daemon stopped before it records it
// (and applies an approved decision) on the way out instead of losing it. The restarted
// daemon here ticks at once and then not for an hour, so only the stop can record the
// approval.
TEST_CASE("advisory: a review made after the last tick is recorded when the daemon stops, and the approved decision applied") {
  const auto dir = testing::fresh_dir("advisory_stop");
  // 14 ticks: the restart's first tick (15) asks for a change, which then pends.
  const auto first = advisory_run(dir, 14);
  INFO(first.stderr_text);
  REQUIRE(first.exit_status == 0);
  const std::string token = token_file("advisory_stop_token");
  nlohmann::json approved;
  {
    AdminDaemon d("advisory_stop_run", {"--connector", "advisory", "--admin-token-file", token, "--data-dir",
                                        dir.string(), "--speedup", "0.01"});
    d.wait_ready();  // the run's first tick, at once; the next is an hour away
    approved = review_one(d.api, "approve", R"({"reason": "before the stop", "by": "dana"})");
    REQUIRE_FALSE(approved.is_null());
    CHECK(count_reviews(events(d.api, "decision_review"), "approved", approved["id"]) == 0);  // not yet
    CHECK(d.process.terminate() == 0);
  }
  auto store = storage::EventStore::open_read_only(dir.string()).value();
  std::size_t recorded = 0, applied = 0;
  REQUIRE(store
              ->for_each({}, [&](const storage::Event& e) {
                if (const auto* r = std::get_if<storage::DecisionReviewed>(&e.payload))
                  recorded += r->action == "approved" && r->decision_seq == approved["id"].get<std::uint64_t>() &&
                              r->by == "dana";
                if (const auto* a = std::get_if<storage::ActuationRecorded>(&e.payload))
                  applied += a->status == "applied" && a->variant.variant == approved["variant"] &&
                             a->target == approved["target_replicas"].get<int>();
                return true;
              })
              .ok());
  CHECK(recorded == 1);
  CHECK(applied == 1);
  std::filesystem::remove(token);
  std::filesystem::remove_all(dir);
}

TEST_CASE("advisory: a restart keeps the pending decisions, and replay timeline shows who approved what and why") {
  const auto dir = testing::fresh_dir("advisory_restart");
  const auto first = advisory_run(dir, 20);
  INFO(first.stderr_text);
  REQUIRE(first.exit_status == 0);
  std::vector<std::uint64_t> was_pending;
  {
    auto store = storage::EventStore::open_read_only(dir.string()).value();
    for (const auto& p : actors::ApprovalQueue::restore(*store).value().pending()) was_pending.push_back(p.id);
  }
  REQUIRE_FALSE(was_pending.empty());

  const std::string token = token_file("advisory_restart_token");
  {
    AdminDaemon d("advisory_restart_run",
                  {"--connector", "advisory", "--admin-token-file", token, "--data-dir", dir.string()});
    d.wait_ready();  // resumed, so the log says what it restored
    CHECK(d.process.stderr_text().find(std::to_string(was_pending.size()) + " decisions await approval") !=
          std::string::npos);
    // Each still pends, unless a tick since the restart superseded it (and said so).
    const auto listed = pending(d.api);
    const auto reviews = events(d.api, "decision_review");
    for (std::uint64_t id : was_pending) {
      INFO(id);
      bool still = false;
      for (const auto& p : listed) still |= p["id"] == id;
      CHECK((still || count_reviews(reviews, "superseded", id) == 1));
    }
    const nlohmann::json approved = review_one(d.api, "approve", R"({"reason": "after the restart", "by": "carol"})");
    REQUIRE_FALSE(approved.is_null());
    REQUIRE(eventually([&] { return count_reviews(events(d.api, "decision_review"), "approved", approved["id"]) == 1; }));
  }
  const auto timeline =
      testing::run_binary("replay timeline --data " + dir.string() + " --type decision_review --format json", 60);
  REQUIRE(timeline.exit_status == 0);
  bool shown = false;
  std::stringstream lines(timeline.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    shown |= j["payload"]["action"] == "approved" && j["payload"]["by"] == "carol" &&
             j["payload"]["reason"] == "after the restart";
  }
  CHECK(shown);
  std::filesystem::remove(token);
  std::filesystem::remove_all(dir);
}

}  // namespace capstan
