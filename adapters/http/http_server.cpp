// Boost.Beast server behind HttpRouter; see http_server.hpp.
#include "adapters/http/http_server.hpp"

#include <optional>
#include <set>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace capstan::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace detail {

class Session;

}  // namespace detail

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(asio::io_context& io_, HttpRouter router_, HttpServerOptions options_)
      : io(io_), acceptor(io_), router(std::move(router_)), options(std::move(options_)) {}

  void accept();

  asio::io_context& io;
  tcp::acceptor acceptor;
  HttpRouter router;
  HttpServerOptions options;
  std::set<std::shared_ptr<detail::Session>> sessions;
  bool stopped = false;
};

namespace detail {

HttpRequest to_request(const bhttp::request<bhttp::string_body>& req) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  const std::string target(req.target());
  const std::size_t q = target.find('?');
  out.path = target.substr(0, q);
  if (q != std::string::npos) out.query = target.substr(q + 1);
  if (auto it = req.find(bhttp::field::content_type); it != req.end()) out.content_type = std::string(it->value());
  if (auto it = req.find(bhttp::field::authorization); it != req.end()) out.authorization = std::string(it->value());
  out.body = req.body();
  return out;
}

// One connection: read a request, answer it, repeat while keep-alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<HttpServer::Impl> server)
      : stream_(std::move(socket)), server_(std::move(server)) {}

  void start() { read(); }
  // Answers a connection the server has no room for, then closes it.
  void refuse(int status, const std::string& message) { write(server_->router.error(status, message), false, 11); }
  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

 private:
  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_->options.max_header_bytes));
    parser_->body_limit(server_->options.max_body_bytes);
    stream_.expires_after(server_->options.idle_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    const auto& router = server_->router;
    if (ec == bhttp::error::body_limit || ec == bhttp::error::header_limit) {
      write(router.error(ec == bhttp::error::body_limit ? 413 : 431, ec.message()), /*keep_alive=*/false, 11);
      return;
    }
    // A request that is not HTTP: 400, then close (the stream cannot be resynchronised).
    if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
        ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
      write(router.error(400, "malformed request: " + ec.message()), false, 11);
      return;
    }
    if (ec) return finish();
    const auto& req = parser_->get();
    if (static_cast<std::size_t>(std::distance(req.begin(), req.end())) > server_->options.max_header_fields) {
      write(router.error(431, "more than " + std::to_string(server_->options.max_header_fields) + " header fields"),
            false, req.version());
      return;
    }
    HttpResponse r;
    try {
      HttpRequest request = to_request(req);
      std::optional<HttpResponse> refused;
      if (server_->options.guard) refused = server_->options.guard(request);
      r = refused ? std::move(*refused) : router.dispatch(std::move(request));
    } catch (const std::exception& e) {
      r = router.error(500, std::string("internal error: ") + e.what());
    }
    write(std::move(r), req.keep_alive(), req.version());
  }

  void write(HttpResponse r, bool keep_alive, unsigned version) {
    auto res = std::make_shared<bhttp::response<bhttp::string_body>>(static_cast<bhttp::status>(r.status), version);
    res->set(bhttp::field::server, "capstan");
    res->set(bhttp::field::content_type, r.content_type);
    for (const auto& [name, value] : r.headers) res->set(name, value);
    res->body() = std::move(r.body);
    res->keep_alive(keep_alive);
    res->prepare_payload();
    stream_.expires_after(server_->options.idle_timeout);
    bhttp::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      if (ec || !res->keep_alive()) return self->finish();
      self->read();
    });
  }

  void finish() {
    close();
    server_->sessions.erase(shared_from_this());
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::shared_ptr<HttpServer::Impl> server_;
};

}  // namespace detail

void HttpServer::Impl::accept() {
  acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
    if (self->stopped) return;
    if (!ec) {
      auto session = std::make_shared<detail::Session>(std::move(socket), self);
      const bool room = self->sessions.size() < self->options.max_connections;
      self->sessions.insert(session);
      if (room)
        session->start();
      else
        session->refuse(503, "more than " + std::to_string(self->options.max_connections) + " open connections");
    }
    self->accept();
  });
}

HttpServer::HttpServer(asio::io_context& io, HttpRouter router, HttpServerOptions options)
    : impl_(std::make_shared<Impl>(io, std::move(router), std::move(options))) {}

HttpServer::~HttpServer() { stop(); }

Result<unsigned short> HttpServer::listen() {
  const std::string where = impl_->options.address + ":" + std::to_string(impl_->options.port);
  beast::error_code ec;
  const auto address = asio::ip::make_address(impl_->options.address, ec);
  if (ec) return invalid_argument("cannot listen on " + where + ": bad address: " + ec.message());
  const tcp::endpoint endpoint(address, impl_->options.port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    beast::error_code ignored;
    acceptor.close(ignored);
    return invalid_argument("cannot listen on " + where + ": " + ec.message());
  }
  impl_->stopped = false;
  impl_->accept();
  return acceptor.local_endpoint().port();
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
  auto sessions = std::move(impl_->sessions);
  impl_->sessions.clear();
  for (const auto& s : sessions) s->close();
}

}  // namespace capstan::http
