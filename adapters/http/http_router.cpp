// Path-pattern routing; see http_router.hpp.
#include "adapters/http/http_router.hpp"

namespace capstan::http {

HttpResponse text_response(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse json_response(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = "application/json";
  return r;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = path.empty() || path[0] != '/' ? 0 : 1;
  for (;;) {
    const std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) {
      out.push_back(path.substr(start));
      return out;
    }
    out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

void HttpRouter::add(std::string method, std::string pattern, HttpHandler handler) {
  routes_.push_back({std::move(method), split_path(pattern), std::move(handler)});
}

namespace {

bool is_placeholder(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

bool match(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
           std::map<std::string, std::string>& params) {
  if (pattern.size() != path.size()) return false;
  std::map<std::string, std::string> found;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (is_placeholder(pattern[i])) {
      if (path[i].empty()) return false;
      found[pattern[i].substr(1, pattern[i].size() - 2)] = path[i];
    } else if (pattern[i] != path[i]) {
      return false;
    }
  }
  params = std::move(found);
  return true;
}

}  // namespace

HttpResponse HttpRouter::dispatch(HttpRequest request) const {
  const auto segments = split_path(request.path);
  std::string allowed;
  for (const Route& route : routes_) {
    std::map<std::string, std::string> params;
    if (!match(route.segments, segments, params)) continue;
    if (route.method != request.method) {
      allowed += (allowed.empty() ? "" : ", ") + route.method;
      continue;
    }
    request.params = std::move(params);
    return route.handler(request);
  }
  if (!allowed.empty()) {
    HttpResponse r = error(405, "method " + request.method + " not allowed on " + request.path);
    r.headers.emplace_back("Allow", allowed);
    return r;
  }
  return error(404, "no route for " + request.path);
}

HttpResponse HttpRouter::error(int status, const std::string& message) const {
  return error_format_ ? error_format_(status, message) : text_response(status, message + "\n");
}

}  // namespace capstan::http
