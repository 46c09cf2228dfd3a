// The admin and simulator HTTP servers' routing table: (method, path pattern) ->
// handler. A pattern is a path whose segments may be "{name}" placeholders that
// match one non-empty segment ("/metrics/pods/{pod}"); the matched values reach the
// handler in HttpRequest::params. Handlers are plain functions from a request to a
// status and a body, so they are testable without a socket (http_server.hpp moves
// the bytes). Dispatch: the first route whose pattern and method match; a path that
// matches only under other methods gets 405, anything else 404.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace capstan::http {

struct HttpRequest {
  std::string method;   // "GET", "PATCH", ... as sent
  std::string path;     // the target without its query string
  std::string query;    // after '?', undecoded; empty if none
  std::string content_type;
  std::string authorization;  // the Authorization header, empty if none
  std::string body;
  std::map<std::string, std::string> params;  // filled by the router from {placeholders}
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;
// How a server's errors (404, 405, 413, ...) are written: text by default; the admin API
// answers JSON.
using HttpErrorFormat = std::function<HttpResponse(int status, const std::string& message)>;

HttpResponse text_response(int status, std::string body);
HttpResponse json_response(int status, std::string body);

class HttpRouter {
 public:
  // pattern starts with '/'; a trailing '/' is significant.
  void add(std::string method, std::string pattern, HttpHandler handler);

  // Fills request.params from the matched pattern, then calls its handler.
  HttpResponse dispatch(HttpRequest request) const;

  void set_error_format(HttpErrorFormat format) { error_format_ = std::move(format); }
  // An error response in this router's format; the message ends without a newline.
  HttpResponse error(int status, const std::string& message) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    HttpHandler handler;
  };
  std::vector<Route> routes_;
  HttpErrorFormat error_format_;
};

// "/a/b/" -> {"a", "b", ""}; "/" -> {""}.
std::vector<std::string> split_path(const std::string& path);

}  // namespace capstan::http
