// A `capstan run` on the simulated fleet with every admin role on a free port, for the
// admin API's tests (admin_api_test.cpp, advisory_test.cpp), and their JSON checks.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "http_test_client.hpp"
#include "spawned_binary.hpp"

namespace capstan::testing {

using namespace std::chrono_literals;

inline std::string example(const std::string& name) { return std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/" + name; }

inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("capstan_admin_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// The port a role announced on stderr ("capstan: metrics on http://127.0.0.1:PORT"), 0 if none.
inline unsigned short announced_port(const std::string& log, const std::string& role) {
  const std::string mark = role + " on http://127.0.0.1:";
  const auto at = log.find(mark);
  return at == std::string::npos ? 0 : static_cast<unsigned short>(std::stoi(log.substr(at + mark.size())));
}

// A daemon on the simulated fleet with every admin role on a free port.
struct AdminDaemon {
  explicit AdminDaemon(const std::string& name, std::vector<std::string> extra = {})
      : dir(fresh_dir(name)), process(args(dir, std::move(extra))) {
    REQUIRE(process.started());
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    std::string log;
    while (std::chrono::steady_clock::now() < deadline && (log = process.stderr_text()).find("health probes ") == std::string::npos)
      std::this_thread::sleep_for(20ms);
    INFO(log);
    api = announced_port(log, "admin api");
    metrics = announced_port(log, "metrics");
    health = announced_port(log, "health probes");
    REQUIRE(health != 0);
  }
  ~AdminDaemon() {
    process.terminate();
    std::filesystem::remove_all(dir);
  }

  static std::vector<std::string> args(const std::filesystem::path& dir, std::vector<std::string> extra) {
    std::vector<std::string> a{"run", "--clock", "wall", "--speedup", "600", "--trace", example("azure_code_15min.csv"),
                               "--fleet", example("fleet.yaml"), "--data-dir", dir.string(), "--admin-bind",
                               "127.0.0.1:0", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address",
                               "127.0.0.1:0"};
    // A flag given again in `extra` replaces the default above.
    for (std::size_t i = 0; i + 1 < extra.size(); i += 2) {
      const auto at = std::find(a.begin(), a.end(), extra[i]);
      if (at != a.end()) {
        *(at + 1) = extra[i + 1];
      } else {
        a.push_back(extra[i]);
        a.push_back(extra[i + 1]);
      }
    }
    return a;
  }

  // Waits (bounded) until /readyz says ready: the first tick is done.
  void wait_ready() const {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && http_call(health, "GET", "/readyz").status != 200)
      std::this_thread::sleep_for(50ms);
    REQUIRE(http_call(health, "GET", "/readyz").status == 200);
  }

  // Waits (bounded) until a tick has learned parameters and sized capacity (the first
  // ticks have no capacity data yet).
  void wait_learned() const {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline &&
           http_call(metrics, "GET", "/metrics").body.find("\ncapstan_lambda_star_rps{") == std::string::npos)
      std::this_thread::sleep_for(50ms);
  }

  double ticks() const {
    const std::string text = http_call(metrics, "GET", "/metrics").body;
    const auto at = text.find("\ncapstan_ticks_total ");
    REQUIRE(at != std::string::npos);
    return std::stod(text.substr(at + 21));
  }

  std::filesystem::path dir;
  testing::SpawnedBinary process;
  unsigned short api = 0, metrics = 0, health = 0;
};

inline nlohmann::json json_of(const HttpReply& r) {
  INFO(r.body);
  REQUIRE(r.headers.count("content-type") == 1);
  CHECK(r.headers.at("content-type") == "application/json");
  return nlohmann::json::parse(r.body);
}

// A JSON error of this status, with a message.
inline void check_error(const HttpReply& r, int status) {
  INFO(r.body);
  CHECK(r.status == status);
  const auto j = json_of(r);
  CHECK(j["error"]["code"] == status);
  CHECK_FALSE(j["error"]["message"].get<std::string>().empty());
}

inline HttpReply get_with(unsigned short port, const std::string& target, const std::string& authorization) {
  HttpTestConnection c(port);
  return c.send_raw("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                    (authorization.empty() ? "" : "Authorization: " + authorization + "\r\n") +
                    "Connection: close\r\n\r\n");
}

}  // namespace capstan::testing
