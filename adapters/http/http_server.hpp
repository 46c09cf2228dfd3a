// A small HTTP/1.1 server (Boost.Beast) for capstan's own endpoints: it accepts on
// one address, reads each request with a bounded size, hands it to an HttpRouter and
// writes the handler's response, keeping connections alive while the client asks.
// It runs on the io_context the caller owns and runs (one thread is the intended
// use: handlers then never run concurrently). A malformed request gets 400, one over
// the limits 413 or 431, a connection over max_connections 503, all written by the
// router's error format, and the connection is closed after each of them. Constructing it does nothing; listen()
// binds and starts accepting, stop() closes the acceptor and every open connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>

#include "adapters/http/http_router.hpp"
#include "domain/core/result.hpp"

namespace capstan::http {

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;                      // 0: the kernel picks one (see listen())
  std::size_t max_header_bytes = 8 * 1024;
  std::size_t max_body_bytes = 64 * 1024;       // larger bodies get 413
  std::size_t max_header_fields = 100;          // more get 431
  std::size_t max_connections = 256;            // a connection beyond gets 503 and is closed
  std::chrono::milliseconds idle_timeout{30000};  // per read or write
  // Runs before routing: a response refuses the request (e.g. 401), nullopt lets it through.
  std::function<std::optional<HttpResponse>(const HttpRequest&)> guard;
};

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, HttpRouter router, HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and queues the first accept; returns the bound port. Errors name
  // the address ("cannot listen on 127.0.0.1:80: Permission denied").
  Result<unsigned short> listen();
  // Stops accepting and closes the open connections; safe to call twice.
  void stop();

  struct Impl;  // opaque: the acceptor and its connections, in http_server.cpp

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace capstan::http
