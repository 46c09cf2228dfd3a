// A minimal blocking HTTP/1.1 client for tests, on POSIX sockets to 127.0.0.1 only:
// every connect, send and receive is bounded by a deadline (poll), so a server that
// hangs fails the test instead of hanging it. Responses need Content-Length (the
// capstan server always sends it) or end at connection close.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <map>
#include <string>

namespace capstan::testing {

struct HttpReply {
  int status = 0;  // 0: no answer before the deadline (or connection failed)
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class HttpTestConnection {
 public:
  using Clock = std::chrono::steady_clock;

  explicit HttpTestConnection(unsigned short port, std::chrono::milliseconds timeout = std::chrono::seconds(5))
      : timeout_(timeout) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
    const auto deadline = Clock::now() + timeout_;
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      int err = 0;
      socklen_t len = sizeof err;
      if (errno != EINPROGRESS || !wait(POLLOUT, deadline) ||
          ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
        close();
        return;
      }
    }
  }
  ~HttpTestConnection() { close(); }
  HttpTestConnection(const HttpTestConnection&) = delete;
  HttpTestConnection& operator=(const HttpTestConnection&) = delete;

  bool connected() const { return fd_ >= 0; }

  HttpReply request(const std::string& method, const std::string& target, const std::string& body = "",
                    const std::string& content_type = "", bool close_after = false) {
    std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!content_type.empty()) req += "Content-Type: " + content_type + "\r\n";
    if (!body.empty() || method == "PATCH" || method == "POST") req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    if (close_after) req += "Connection: close\r\n";
    req += "\r\n" + body;
    return send_raw(req);
  }

  // Sends bytes as they are and reads one response.
  HttpReply send_raw(const std::string& bytes) {
    HttpReply reply;
    if (fd_ < 0) return reply;
    const auto deadline = Clock::now() + timeout_;
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      if (!wait(POLLOUT, deadline)) return reply;
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return reply;
      sent += static_cast<std::size_t>(n);
    }
    std::size_t header_end;
    while ((header_end = pending_.find("\r\n\r\n")) == std::string::npos)
      if (!receive(deadline)) return reply;
    const std::string head = pending_.substr(0, header_end);
    pending_.erase(0, header_end + 4);
    if (head.size() < 12 || head.compare(0, 5, "HTTP/") != 0) return reply;
    const int status = std::stoi(head.substr(9, 3));
    std::size_t pos = head.find("\r\n");
    while (pos != std::string::npos) {
      const std::size_t next = head.find("\r\n", pos + 2);
      const std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        reply.headers[name] = value;
      }
      pos = next;
    }
    if (auto it = reply.headers.find("content-length"); it != reply.headers.end()) {
      const std::size_t length = std::stoul(it->second);
      while (pending_.size() < length)
        if (!receive(deadline)) return reply;
      reply.body = pending_.substr(0, length);
      pending_.erase(0, length);
    } else {
      while (receive(deadline)) {
      }
      if (!eof_) return reply;
      reply.body = std::move(pending_);
      pending_.clear();
    }
    reply.status = status;
    return reply;
  }

  // True if the server closed the connection before the deadline.
  bool closed_by_peer(std::chrono::milliseconds within) {
    const auto deadline = Clock::now() + within;
    while (!eof_ && receive(deadline)) {
    }
    return eof_;
  }

 private:
  bool wait(short events, Clock::time_point deadline) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
  }

  bool receive(Clock::time_point deadline) {
    if (eof_ || !wait(POLLIN, deadline)) return false;
    char buf[8192];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    pending_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  std::string pending_;
  bool eof_ = false;
};

// One request on its own connection.
inline HttpReply http_call(unsigned short port, const std::string& method, const std::string& target,
                           const std::string& body = "", const std::string& content_type = "") {
  HttpTestConnection c(port);
  return c.request(method, target, body, content_type, /*close_after=*/true);
}

}  // namespace capstan::testing
