// The admin HTTP API (adapters/admin/) of a running `capstan run` on the simulated
// fleet, through the real binary and a socket client: every endpoint's status and JSON
// shape, paging, the bearer token, requests over the limits or malformed refused while
// the daemon keeps ticking, and /metrics through `promtool check metrics` when it is
// installed (ops/install-deps.sh installs it).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "actors/daemon_status.hpp"
#include "adapters/admin/admin_server.hpp"
#include "adapters/admin/prometheus_text.hpp"
#include "admin_daemon.hpp"

namespace capstan {
namespace {

using namespace std::chrono_literals;
using testing::AdminDaemon;
using testing::check_error;
using testing::example;
using testing::fresh_dir;
using testing::get_with;
using testing::http_call;
using testing::HttpReply;
using testing::HttpTestConnection;
using testing::json_of;
using Daemon = AdminDaemon;

// The URL path segment of a model id ('/' -> %2F).
std::string escaped(const std::string& id) {
  std::string out;
  for (char c : id) out += c == '/' ? std::string("%2F") : std::string(1, c);
  return out;
}

}  // namespace

TEST_CASE("admin API: probes, metrics, models, events, decisions and config of a running daemon") {
  Daemon d("endpoints");
  REQUIRE(d.api != 0);
  REQUIRE(d.metrics != 0);
  CHECK(json_of(http_call(d.health, "GET", "/healthz"))["status"] == "ok");
  d.wait_ready();
  d.wait_learned();
  const auto ready = json_of(http_call(d.health, "GET", "/readyz"));
  CHECK(ready["ready"] == true);
  CHECK(ready["reasons"].empty());

  SECTION("metrics") {
    const HttpReply r = http_call(d.metrics, "GET", "/metrics");
    CHECK(r.status == 200);
    CHECK(r.headers.at("content-type").rfind("text/plain; version=0.0.4", 0) == 0);
    for (const char* family : {"capstan_ticks_total counter", "capstan_tick_duration_seconds histogram",
                               "capstan_decisions_total counter", "capstan_desired_replicas gauge",
                               "capstan_current_replicas gauge", "capstan_events_appended_total counter",
                               "capstan_event_last_sequence gauge", "capstan_actuation_failures_total counter",
                               "capstan_learned_alpha_seconds gauge", "capstan_learned_nis gauge",
                               "capstan_lambda_star_rps gauge"})
      CHECK(r.body.find(std::string("# TYPE ") + family + "\n") != std::string::npos);
    CHECK(r.body.find("capstan_tick_duration_seconds_bucket{le=\"+Inf\"}") != std::string::npos);
    CHECK(d.ticks() >= 1);
    // promtool, when installed (ops/install-deps.sh installs it), checks the exposition.
    if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
      WARN("promtool is not installed: skipping `promtool check metrics` (apt-get install prometheus)");
    } else {
      const auto file = d.dir.string() + "_metrics.txt";
      std::ofstream(file) << r.body;
      const std::string command = "promtool check metrics < " + file + " > " + file + ".out 2>&1";
      const int status = std::system(command.c_str());
      std::ifstream out(file + ".out");
      const std::string said((std::istreambuf_iterator<char>(out)), {});
      INFO(said);
      CHECK(status == 0);
      CHECK(said.empty());
      std::filesystem::remove(file);
      std::filesystem::remove(file + ".out");
    }
  }

  SECTION("models and one model") {
    const auto models = json_of(http_call(d.api, "GET", "/api/v1/models"))["models"];
    REQUIRE(models.size() == 1);
    const auto& m = models[0];
    CHECK(m["namespace"].is_string());
    CHECK(m["tick"].get<int>() >= 1);
    REQUIRE(m["variants"].size() >= 1);
    for (const auto& v : m["variants"]) {
      CHECK(v["name"].is_string());
      CHECK(v["current_replicas"].is_number_integer());
      CHECK(v["desired_replicas"].is_number_integer());
      CHECK(v["reason"].is_string());
    }
    const std::string path = "/api/v1/models/" + m["namespace"].get<std::string>() + "/" +
                             escaped(m["model_id"].get<std::string>());
    const auto detail = json_of(http_call(d.api, "GET", path));
    CHECK(detail["model_id"] == m["model_id"]);
    CHECK(detail["slo"]["ttft_ms"].is_number());
    bool learned = false;
    for (const auto& v : detail["variants"]) {
      CHECK(v["last_decision"]["reason"]["text"].is_string());
      CHECK(v["actuation_failures"].is_number_unsigned());
      learned |= v["learned"].is_object() && v["learned"]["type"] == "params_learned";
    }
    CHECK(learned);
    check_error(http_call(d.api, "GET", "/api/v1/models/nowhere/nothing"), 404);
  }

  SECTION("events are paged in sequence order and filtered") {
    const auto first = json_of(http_call(d.api, "GET", "/api/v1/events?limit=3"));
    REQUIRE(first["events"].size() == 3);
    CHECK(first["events"][0]["seq"] == 1);
    CHECK(first["events"][2]["seq"] == 3);
    CHECK(first["next_from_seq"] == 4);
    const auto second = json_of(http_call(d.api, "GET", "/api/v1/events?limit=2&from_seq=4"));
    REQUIRE(second["events"].size() == 2);
    CHECK(second["events"][0]["seq"] == 4);
    const auto decisions = json_of(http_call(d.api, "GET", "/api/v1/events?type=decision&limit=5"));
    REQUIRE_FALSE(decisions["events"].empty());
    for (const auto& e : decisions["events"]) CHECK(e["type"] == "decision");
    const auto& model = decisions["events"][0]["model"];
    const std::string key = model["ns"].get<std::string>() + "/" + model["model_id"].get<std::string>();
    const auto of_model = json_of(http_call(d.api, "GET", "/api/v1/events?limit=20&model=" + escaped(key)));
    REQUIRE_FALSE(of_model["events"].empty());
    for (const auto& e : of_model["events"]) CHECK(e["model"] == model);
    // The reader behind the pages is kept open: later pages see the ticks made since.
    const auto ticks_then = json_of(http_call(d.api, "GET", "/api/v1/events?type=tick&limit=1000"))["events"].size();
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    std::size_t ticks_now = ticks_then;
    while (ticks_now <= ticks_then && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(100ms);
      ticks_now = json_of(http_call(d.api, "GET", "/api/v1/events?type=tick&limit=1000"))["events"].size();
    }
    CHECK(ticks_now > ticks_then);
    // The end of the store: no next page.
    const auto last = json_of(http_call(d.api, "GET", "/api/v1/events?from_seq=100000000"));
    CHECK(last["events"].empty());
    CHECK(last["next_from_seq"].is_null());

    check_error(http_call(d.api, "GET", "/api/v1/events?type=nonsense"), 400);
    check_error(http_call(d.api, "GET", "/api/v1/events?limit=0"), 400);
    check_error(http_call(d.api, "GET", "/api/v1/events?limit=1001"), 400);
    check_error(http_call(d.api, "GET", "/api/v1/events?from_seq=x"), 400);
    check_error(http_call(d.api, "GET", "/api/v1/events?model=nonamespace"), 400);
    check_error(http_call(d.api, "GET", "/api/v1/events?colour=blue"), 400);
  }

  SECTION("decisions since a time") {
    const auto all = json_of(http_call(d.api, "GET", "/api/v1/decisions?limit=1000"))["events"];
    REQUIRE(all.size() >= 2);
    const double since = all.back()["time_s"].get<double>();
    const auto recent = json_of(http_call(d.api, "GET", "/api/v1/decisions?since=" + std::to_string(since)))["events"];
    REQUIRE_FALSE(recent.empty());
    for (const auto& e : recent) {
      CHECK(e["type"] == "decision");
      CHECK(e["time_s"].get<double>() >= since);
      CHECK(e["payload"]["decision"]["reason"]["text"].is_string());
    }
    check_error(http_call(d.api, "GET", "/api/v1/decisions?since=soon"), 400);
    check_error(http_call(d.api, "GET", "/api/v1/decisions?type=tick"), 400);
  }

  SECTION("config with the layer of every value") {
    const auto c = json_of(http_call(d.api, "GET", "/api/v1/config"));
    CHECK(c["config"]["admin_bind"] == "127.0.0.1:0");
    CHECK(c["origins"]["admin_bind"] == "flag --admin-bind");
    CHECK(c["origins"]["policy"] == "default");
  }

  SECTION("unknown paths and wrong methods") {
    check_error(http_call(d.api, "GET", "/api/v1/nothing"), 404);
    check_error(http_call(d.api, "GET", "/metrics"), 404);  // metrics live on their own address
    const HttpReply post = http_call(d.api, "POST", "/api/v1/models", "{}", "application/json");
    check_error(post, 405);
    CHECK(post.headers.at("allow") == "GET");
  }
}

TEST_CASE("admin API: with a token file every path but the probes needs the bearer token") {
  const auto token_file = fresh_dir("token").string() + ".token";
  std::ofstream(token_file) << "s3cret-token\n";
  Daemon d("auth", {"--admin-token-file", token_file});
  d.wait_ready();
  for (auto [port, path] : {std::pair{d.api, "/api/v1/models"}, std::pair{d.api, "/api/v1/nothing"},
                            std::pair{d.metrics, "/metrics"}}) {
    INFO(path);
    const HttpReply none = get_with(port, path, "");
    check_error(none, 401);
    CHECK(none.headers.at("www-authenticate") == "Bearer");
    check_error(get_with(port, path, "Bearer wrong"), 401);
    check_error(get_with(port, path, "Basic s3cret-token"), 401);
    check_error(get_with(port, path, "Bearer s3cret-token-and-more"), 401);
  }
  CHECK(get_with(d.api, "/api/v1/models", "Bearer s3cret-token").status == 200);
  check_error(get_with(d.api, "/api/v1/nothing", "Bearer s3cret-token"), 404);
  CHECK(get_with(d.metrics, "/metrics", "Bearer s3cret-token").status == 200);
  CHECK(get_with(d.health, "/healthz", "").status == 200);
  CHECK(get_with(d.health, "/readyz", "").status == 200);
  std::filesystem::remove(token_file);
}

TEST_CASE("admin API: oversized and malformed requests are refused and the daemon keeps ticking") {
  Daemon d("limits");
  d.wait_ready();
  const double before = d.ticks();
  {
    HttpTestConnection c(d.api);
    // The declared length is refused before the body is read (sending it all would race the close).
    check_error(c.send_raw("POST /api/v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" +
                           std::string(1000, 'x')),
                413);
    CHECK(c.closed_by_peer(2s));
  }
  {
    HttpTestConnection c(d.api);
    check_error(c.send_raw("GET /api/v1/models HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') +
                           "\r\n\r\n"),
                431);
  }
  {
    std::string many = "GET /api/v1/models HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 200; ++i) many += "X-H" + std::to_string(i) + ": 1\r\n";
    HttpTestConnection c(d.api);
    check_error(c.send_raw(many + "\r\n"), 431);
  }
  {
    HttpTestConnection c(d.api);
    check_error(c.send_raw("THIS IS NOT HTTP\r\n\r\n"), 400);
    CHECK(c.closed_by_peer(2s));
  }
  {
    HttpTestConnection c(d.api);
    check_error(c.send_raw("GET /api/v1/models HTTP/1.1\r\nContent-Length: nope\r\n\r\n"), 400);
  }
  // The daemon and the API are unharmed.
  CHECK(http_call(d.api, "GET", "/api/v1/models").status == 200);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline && d.ticks() <= before) std::this_thread::sleep_for(50ms);
  CHECK(d.ticks() > before);
  CHECK(http_call(d.health, "GET", "/readyz").status == 200);
}

TEST_CASE("admin API: an address of 0 turns a role off; a bad address is a usage error") {
  {
    Daemon d("off", {"--admin-bind", "0", "--metrics-bind-address", "0"});
    CHECK(d.api == 0);
    CHECK(d.metrics == 0);
    CHECK(http_call(d.health, "GET", "/healthz").status == 200);
  }
  testing::SpawnedBinary bad(Daemon::args(fresh_dir("bad"), {"--admin-bind", "localhost"}));
  REQUIRE(bad.started());
  CHECK(bad.wait_exit(10s) != 0);
  CHECK(bad.stderr_text().find("admin_bind: no port") != std::string::npos);
}

TEST_CASE("prometheus text: HELP and TYPE, escaped label values, valid names only") {
  admin::PrometheusText text;
  text.family("capstan_x_total", "counter", "A help with a \\ and\na newline.",
              {{{{"model", "a\"b\\c\nd"}}, 2}, {{{"model", "plain"}}, 0.25}});
  text.family("capstan_empty", "gauge", "No samples: nothing written.", {});
  CHECK(text.text() ==
        "# HELP capstan_x_total A help with a \\\\ and\\na newline.\n# TYPE capstan_x_total counter\n"
        "capstan_x_total{model=\"a\\\"b\\\\c\\nd\"} 2\ncapstan_x_total{model=\"plain\"} 0.25\n");
  CHECK(admin::sample_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(admin::sample_value(std::nan("")) == "NaN");
  CHECK(admin::sample_value(0.1) == "0.1");
  CHECK_THROWS_AS(text.family("9bad", "gauge", "h", {{{}, 1}}), std::invalid_argument);
  CHECK_THROWS_AS(text.family("ok", "gauge", "h", {{{{"bad-label", "v"}}, 1}}), std::invalid_argument);
}

TEST_CASE("admin API: /readyz says why not until the store is open and a tick is done; the status keeps what the tick learned") {
  auto status = std::make_shared<actors::DaemonStatus>("/nonexistent/capstan-data", nlohmann::json{{"config", {}}});
  const http::HttpRouter health = admin::health_router(status);
  const http::HttpRouter api = admin::api_router(status);
  http::HttpRequest readyz;
  readyz.method = "GET";
  readyz.path = "/readyz";
  auto not_ready = health.dispatch(readyz);
  CHECK(not_ready.status == 503);
  CHECK(nlohmann::json::parse(not_ready.body)["reasons"].size() == 2);
  status->store_opened(7);
  not_ready = health.dispatch(readyz);
  CHECK(not_ready.status == 503);
  CHECK(nlohmann::json::parse(not_ready.body)["reasons"] == nlohmann::json{"no tick has completed yet"});

  const ModelKey model{"prod", "org/m"};
  actors::TickSummary summary;
  summary.tick = 3;
  summary.now_s = 90;
  summary.last_seq = 12;
  summary.done_ms = 7;
  summary.decisions.push_back({model, "h100", 2, 3, Reason(ReasonCode::kScaleUp, "scale up 2 -> 3")});
  ParamsLearned learned;
  learned.variant = {model, "h100"};
  learned.params = {20, 0.5, 0.01};
  learned.nis = 1.5;
  CapacitySized sized;
  sized.model = model;
  sized.variant = "h100";
  sized.slo = {2000, 100};
  sized.lambda_star_rps = 4.25;
  storage::ActuationRecorded failed;
  failed.variant = {model, "h100"};
  failed.status = "failed";
  status->record_tick(summary, {{8, 90, TickEvent{learned}}, {9, 90, TickEvent{sized}}, {10, 90, failed}});
  CHECK(health.dispatch(readyz).status == 200);

  const std::string metrics = status->metrics();
  const std::string labels = "{namespace=\"prod\",model=\"org/m\",variant=\"h100\"}";
  CHECK(metrics.find("capstan_ticks_total 1\n") != std::string::npos);
  CHECK(metrics.find("capstan_decisions_total{namespace=\"prod\",model=\"org/m\",variant=\"h100\",reason=\"scale_up\"} 1\n") !=
        std::string::npos);
  CHECK(metrics.find("capstan_desired_replicas" + labels + " 3\n") != std::string::npos);
  CHECK(metrics.find("capstan_current_replicas" + labels + " 2\n") != std::string::npos);
  CHECK(metrics.find("capstan_actuation_failures_total" + labels + " 1\n") != std::string::npos);
  CHECK(metrics.find("capstan_learned_alpha_seconds" + labels + " 0.02\n") != std::string::npos);
  CHECK(metrics.find("capstan_learned_nis" + labels + " 1.5\n") != std::string::npos);
  CHECK(metrics.find("capstan_lambda_star_rps" + labels + " 4.25\n") != std::string::npos);
  CHECK(metrics.find("capstan_events_appended_total 5\n") != std::string::npos);
  CHECK(metrics.find("capstan_tick_duration_seconds_bucket{le=\"0.01\"} 1\n") != std::string::npos);
  CHECK(metrics.find("capstan_tick_duration_seconds_bucket{le=\"0.005\"} 0\n") != std::string::npos);

  http::HttpRequest detail;
  detail.method = "GET";
  detail.path = "/api/v1/models/prod/org%2Fm";
  const auto reply = api.dispatch(detail);
  REQUIRE(reply.status == 200);
  const auto j = nlohmann::json::parse(reply.body);
  CHECK(j["slo"]["ttft_ms"] == 2000.0);
  CHECK(j["variants"][0]["last_decision"]["reason"]["text"] == "scale up 2 -> 3");
  CHECK(j["variants"][0]["learned"]["params"]["alpha_ms"] == 20.0);
  CHECK(j["variants"][0]["capacity"]["lambda_star_rps"] == 4.25);
  CHECK(j["variants"][0]["actuation_failures"] == 1);
  // A store that is not there: 503 from the events endpoint, not a crash.
  http::HttpRequest events;
  events.method = "GET";
  events.path = "/api/v1/events";
  CHECK(api.dispatch(events).status == 503);
}

TEST_CASE("admin API: /api/v1/models is made once per tick and paged with limit and after") {
  auto status = std::make_shared<actors::DaemonStatus>("/nonexistent/capstan-data", nlohmann::json{{"config", {}}});
  const http::HttpRouter api = admin::api_router(status);
  const auto get = [&](const std::string& query) {
    http::HttpRequest req;
    req.method = "GET";
    req.path = "/api/v1/models";
    req.query = query;
    return api.dispatch(req);
  };
  CHECK(nlohmann::json::parse(get("").body)["models"].empty());
  actors::TickSummary summary;
  summary.tick = 1;
  for (const char* id : {"c", "a", "b"}) summary.decisions.push_back({{"prod", id}, "h100", 1, 2, Reason(ReasonCode::kScaleUp, "up")});
  status->record_tick(summary, {});
  const auto all = nlohmann::json::parse(get("").body);
  REQUIRE(all["models"].size() == 3);
  CHECK(all["models"][0]["model_id"] == "a");
  CHECK_FALSE(all.contains("next_after"));
  // The whole list is the pages joined, byte for byte what the tree would write.
  CHECK(get("").body == nlohmann::json{{"models", all["models"]}}.dump() + "\n");
  const auto first = nlohmann::json::parse(get("limit=2").body);
  CHECK(first["models"].size() == 2);
  CHECK(first["next_after"] == "prod/b");
  const auto rest = nlohmann::json::parse(get("limit=2&after=prod/b").body);
  REQUIRE(rest["models"].size() == 1);
  CHECK(rest["models"][0]["model_id"] == "c");
  CHECK(rest["next_after"].is_null());
  CHECK(get("limit=0").status == 400);
  CHECK(get("after=nomodel").status == 400);
  CHECK(get("page=2").status == 400);
  // The next tick's text replaces the last.
  summary.tick = 2;
  summary.decisions.resize(1);
  summary.decisions[0].target_replicas = 5;
  status->record_tick(summary, {});
  CHECK(nlohmann::json::parse(get("limit=1&after=prod/b").body)["models"][0]["variants"][0]["desired_replicas"] == 5);
}

TEST_CASE("admin API: an events page read again between ticks is the same; after a tick it shows what the tick appended") {
  const auto dir = fresh_dir("event_pages");
  auto store = storage::EventStore::open(dir.string(), {});
  REQUIRE(store.ok());
  const ModelKey model{"prod", "m"};
  auto tick = [&](std::uint64_t n, double now_s) {
    std::vector<storage::Event> events;
    events.push_back({0, now_s, storage::TickStarted{n, now_s, 30}});
    events.push_back({0, now_s, TickEvent{DecisionMade{{model, "h100", 2, 2, Reason(ReasonCode::kHold, "hold")}}}});
    REQUIRE(store.value()->append(std::move(events)).ok());
  };
  tick(1, 30);
  auto status = std::make_shared<actors::DaemonStatus>(dir.string(), nlohmann::json{{"config", {}}});
  status->store_opened(store.value()->last_sequence());
  const http::HttpRouter api = admin::api_router(status);
  auto decisions = [&] {
    http::HttpRequest req;
    req.method = "GET";
    req.path = "/api/v1/events";
    req.query = "type=decision&limit=10";
    const auto reply = api.dispatch(req);
    REQUIRE(reply.status == 200);
    return nlohmann::json::parse(reply.body)["events"];
  };
  CHECK(decisions().size() == 1);
  // Appended but not yet a finished tick's: the page stays what it was.
  tick(2, 60);
  CHECK(decisions().size() == 1);
  actors::TickSummary summary;
  summary.tick = 2;
  summary.now_s = 60;
  summary.last_seq = store.value()->last_sequence();
  status->record_tick(summary, {});
  const auto after = decisions();
  REQUIRE(after.size() == 2);
  CHECK(after[1]["seq"] == 4);
  std::filesystem::remove_all(dir);
}

}  // namespace capstan
