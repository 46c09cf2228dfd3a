// The daemon's admin HTTP API (issue 23, part 2) on Boost.Beast (adapters/http/), on an
// io_context of its own thread, so that no request ever waits for a tick nor a tick for
// a request. Three roles, each on its own address and each off when its address is "0"
// (or "", which the configuration's text rule refuses, but the API accepts):
//   health   GET /healthz (alive), GET /readyz (200, or 503 with the reasons)
//   metrics  GET /metrics (Prometheus text 0.0.4)
//   api      GET /api/v1/models?limit=&after=, /api/v1/models/{namespace}/{model},
//            /api/v1/events?from_seq=&limit=&model=&type=, /api/v1/decisions?model=&since=&from_seq=&limit=,
//            /api/v1/config, /api/v1/decisions?pending=true&model= (advisory mode)
//   api, advisory: POST /api/v1/decisions/{id}/approve and /reject, body
//            {"reason": "...", "by": "..."}: the only requests that change anything,
//            refused (403) unless the API has a bearer token; 202 when taken, 404 when
//            decision {id} does not await approval, 409 when the daemon is not advisory
// With a token, every path but /healthz and /readyz needs `Authorization: Bearer <token>`
// (401 otherwise). Errors are JSON {"error": {"code": 404, "message": "..."}}: 404
// unknown path, 405 wrong method, 400 a malformed request or query, 401, 413/431 over the
// size limits, 503 over the connection cap or when the store cannot be read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/admin/state_provider.hpp"
#include "adapters/http/http_server.hpp"
#include "domain/core/result.hpp"

namespace capstan::admin {

struct AdminOptions {
  std::string api_bind = "127.0.0.1:8090";
  std::string metrics_bind = "127.0.0.1:8080";
  std::string health_bind = "127.0.0.1:8081";
  std::string token;  // empty: no authentication
  http::HttpServerOptions limits;  // sizes, header count, timeout, connection cap; address and port unused
};

struct BindAddress {
  std::string host;
  unsigned short port = 0;
};

// "127.0.0.1:8090", ":8080" (every interface), "[::1]:8090", "host:0" (a free port);
// nullopt for "" or "0" (off). Errors name the field: "admin_bind: ... got 'x'".
Result<std::optional<BindAddress>> parse_bind(const std::string& field, const std::string& text);

// The token in a file, trailing whitespace dropped; an empty or unreadable file is an error.
Result<std::string> read_token_file(const std::string& path);

// The routing tables, testable without a socket. `has_token`: the API requires a bearer
// token (the guard checks it before routing), which the approvals need.
http::HttpRouter api_router(std::shared_ptr<const StateProvider> state, bool has_token = false);
http::HttpRouter metrics_router(std::shared_ptr<const StateProvider> state);
http::HttpRouter health_router(std::shared_ptr<const StateProvider> state);

class AdminServer {
 public:
  AdminServer(std::shared_ptr<const StateProvider> state, AdminOptions options);
  ~AdminServer();  // stop()
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // Binds every enabled role and starts the thread. A bad address is an error; a role
  // that cannot listen (port in use) is left off and named in the returned notes, with
  // the address of every role that listens ("admin api on http://127.0.0.1:8090"):
  // the daemon's autoscaling does not depend on its admin API.
  Result<std::vector<std::string>> start();
  void stop();

  // The bound port of a role, once started; nullopt when off or not listening.
  std::optional<unsigned short> api_port() const { return ports_[0]; }
  std::optional<unsigned short> metrics_port() const { return ports_[1]; }
  std::optional<unsigned short> health_port() const { return ports_[2]; }

 private:
  struct Io;
  std::shared_ptr<const StateProvider> state_;
  AdminOptions options_;
  std::unique_ptr<Io> io_;
  std::vector<std::unique_ptr<http::HttpServer>> servers_;
  std::optional<unsigned short> ports_[3];
  std::thread thread_;
};

}  // namespace capstan::admin
