// adapters/http: the router's matching rules, and the Beast server in-process on
// 127.0.0.1 with an ephemeral port, driven by a plain socket client with deadlines.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "adapters/http/http_router.hpp"
#include "adapters/http/http_server.hpp"
#include "adapters/http_test_client.hpp"

using capstan::http::HttpRequest;
using capstan::http::HttpResponse;
using capstan::http::HttpRouter;
using capstan::http::HttpServer;
using capstan::http::HttpServerOptions;
using capstan::testing::http_call;
using capstan::testing::HttpTestConnection;

namespace {

HttpRouter echo_router() {
  HttpRouter router;
  router.add("GET", "/healthz", [](const HttpRequest&) { return capstan::http::text_response(200, "ok\n"); });
  router.add("GET", "/items/{id}", [](const HttpRequest& r) {
    return capstan::http::text_response(200, "item " + r.params.at("id") + " query " + r.query);
  });
  router.add("PATCH", "/items/{id}", [](const HttpRequest& r) {
    return capstan::http::json_response(200, r.content_type + "|" + r.body);
  });
  router.add("GET", "/boom", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("kaput"); });
  return router;
}

// The server on its own io_context thread; the destructor stops and joins it.
class RunningServer {
 public:
  explicit RunningServer(HttpRouter router, HttpServerOptions options = {}) : server_(io_, std::move(router), options) {
    auto bound = server_.listen();
    REQUIRE(bound.ok());
    port_ = bound.value();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningServer() {
    boost::asio::post(io_, [this] { server_.stop(); });
    io_.stop();
    thread_.join();
  }
  unsigned short port() const { return port_; }

 private:
  boost::asio::io_context io_;
  HttpServer server_;
  unsigned short port_ = 0;
  std::thread thread_;
};

}  // namespace

TEST_CASE("router fills placeholders from the path and tells 404 from 405") {
  const HttpRouter router = echo_router();
  HttpRequest req;
  req.method = "GET";
  req.path = "/items/42";
  req.query = "x=1";
  const auto ok = router.dispatch(req);
  CHECK(ok.status == 200);
  CHECK(ok.body == "item 42 query x=1");

  req.path = "/items/";  // a placeholder needs a non-empty segment
  CHECK(router.dispatch(req).status == 404);
  req.path = "/items/42/more";
  CHECK(router.dispatch(req).status == 404);

  req.method = "DELETE";
  req.path = "/items/42";
  const auto wrong = router.dispatch(req);
  CHECK(wrong.status == 405);
  REQUIRE(wrong.headers.size() == 1);
  CHECK(wrong.headers[0].second == "GET, PATCH");
}

TEST_CASE("split_path keeps a trailing slash as an empty segment") {
  CHECK(capstan::http::split_path("/") == std::vector<std::string>{""});
  CHECK(capstan::http::split_path("/a/b/") == std::vector<std::string>{"a", "b", ""});
}

TEST_CASE("a constructed server accepts nothing until listen(), which returns the bound port") {
  boost::asio::io_context io;
  HttpServer server(io, echo_router());
  auto bound = server.listen();
  REQUIRE(bound.ok());
  CHECK(bound.value() != 0);
  server.stop();
  server.stop();  // twice is harmless
}

TEST_CASE("listen on an address that is not an IP fails naming it") {
  boost::asio::io_context io;
  HttpServerOptions options;
  options.address = "not-an-address";
  HttpServer server(io, echo_router(), options);
  auto bound = server.listen();
  REQUIRE_FALSE(bound.ok());
  CHECK(bound.error().message.find("not-an-address:0") != std::string::npos);
}

TEST_CASE("the server answers routed requests over one kept-alive connection") {
  RunningServer server(echo_router());
  HttpTestConnection c(server.port());
  REQUIRE(c.connected());
  auto first = c.request("GET", "/healthz");
  CHECK(first.status == 200);
  CHECK(first.body == "ok\n");
  CHECK(first.headers["content-type"] == "text/plain; charset=utf-8");
  auto second = c.request("PATCH", "/items/7", R"({"a":1})", "application/merge-patch+json");
  CHECK(second.status == 200);
  CHECK(second.body == R"(application/merge-patch+json|{"a":1})");
  CHECK(second.headers["content-type"] == "application/json");
  const auto third = c.request("GET", "/items/7?x=2", "", "", /*close_after=*/true);
  CHECK(third.status == 200);
  CHECK(third.body == "item 7 query x=2");
  CHECK(c.closed_by_peer(std::chrono::seconds(2)));
}

TEST_CASE("unknown paths get 404, a throwing handler 500, and the server keeps serving") {
  RunningServer server(echo_router());
  CHECK(http_call(server.port(), "GET", "/nothing").status == 404);
  const auto boom = http_call(server.port(), "GET", "/boom");
  CHECK(boom.status == 500);
  CHECK(boom.body.find("kaput") != std::string::npos);
  CHECK(http_call(server.port(), "GET", "/healthz").status == 200);
}

TEST_CASE("a body over the size limit gets 413 and the connection is closed") {
  HttpServerOptions options;
  options.max_body_bytes = 16;
  RunningServer server(echo_router(), options);
  HttpTestConnection c(server.port());
  const auto reply = c.request("PATCH", "/items/1", std::string(1000, 'x'), "text/plain");
  CHECK(reply.status == 413);
  CHECK(c.closed_by_peer(std::chrono::seconds(2)));
  CHECK(http_call(server.port(), "PATCH", "/items/1", "small", "text/plain").status == 200);
}

TEST_CASE("stop() closes the listening socket") {
  boost::asio::io_context io;
  HttpServer server(io, echo_router());
  auto bound = server.listen();
  REQUIRE(bound.ok());
  server.stop();
  HttpTestConnection c(bound.value(), std::chrono::milliseconds(500));
  CHECK_FALSE(c.connected());
}

TEST_CASE("a connection over the cap gets 503 and is closed; the open ones are served") {
  HttpServerOptions options;
  options.max_connections = 1;
  RunningServer server(echo_router(), options);
  {
    HttpTestConnection first(server.port());
    CHECK(first.request("GET", "/healthz").status == 200);
    HttpTestConnection second(server.port());
    CHECK(second.request("GET", "/healthz").status == 503);
    CHECK(second.closed_by_peer(std::chrono::seconds(2)));
    CHECK(first.request("GET", "/healthz").status == 200);
  }
  // The first one closed: there is room again once the server has seen it go.
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    status = http_call(server.port(), "GET", "/healthz").status;
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(status == 200);
}

TEST_CASE("a request that is not HTTP gets 400 in the router's error format") {
  HttpRouter router = echo_router();
  router.set_error_format([](int status, const std::string& message) {
    return capstan::http::json_response(status, "{\"status\":" + std::to_string(status) + ",\"m\":\"" + message + "\"}");
  });
  RunningServer server(std::move(router));
  HttpTestConnection c(server.port());
  const auto reply = c.send_raw("HELLO THERE\r\n\r\n");
  CHECK(reply.status == 400);
  CHECK(reply.body.rfind("{\"status\":400", 0) == 0);
  CHECK(c.closed_by_peer(std::chrono::seconds(2)));
  CHECK(http_call(server.port(), "GET", "/nothing").body.rfind("{\"status\":404", 0) == 0);
}

TEST_CASE("a request that stops half-way is cut off at the read timeout") {
  HttpServerOptions options;
  options.idle_timeout = std::chrono::milliseconds(200);
  RunningServer server(echo_router(), options);
  HttpTestConnection c(server.port());
  REQUIRE(c.connected());
  CHECK(c.send_raw("GET /healthz HTTP/1.1\r\nHost: x\r\n").status == 0);  // no answer to half a request
  CHECK(c.closed_by_peer(std::chrono::seconds(3)));
  CHECK(http_call(server.port(), "GET", "/healthz").status == 200);
}
