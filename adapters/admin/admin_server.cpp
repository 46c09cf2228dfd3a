// The admin API's routes and its thread; see admin_server.hpp.
#include "adapters/admin/admin_server.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/io_context.hpp>

#include "adapters/admin/prometheus_text.hpp"

namespace capstan::admin {

using http::HttpRequest;
using http::HttpResponse;

namespace {

constexpr std::size_t kMaxPage = 1000;

HttpResponse json_error(int status, const std::string& message) {
  return http::json_response(status, nlohmann::json{{"error", {{"code", status}, {"message", message}}}}.dump() + "\n");
}

HttpResponse json_ok(const nlohmann::json& body) { return http::json_response(200, body.dump() + "\n"); }

// %XX and '+' decoded; nullopt for a broken escape.
std::optional<std::string> percent_decode(const std::string& text, bool plus_is_space) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+' && plus_is_space) {
      out += ' ';
    } else if (text[i] == '%') {
      unsigned value = 0;
      if (i + 2 >= text.size()) return std::nullopt;
      const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
      if (ec != std::errc() || end != text.data() + i + 3) return std::nullopt;
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct BadQuery {
  std::string message;
};

std::map<std::string, std::string> parse_query(const std::string& query, const std::vector<std::string>& allowed) {
  std::map<std::string, std::string> out;
  std::stringstream parts(query);
  std::string part;
  while (std::getline(parts, part, '&')) {
    if (part.empty()) continue;
    const std::size_t eq = part.find('=');
    const auto name = percent_decode(part.substr(0, eq), true);
    const auto value = percent_decode(eq == std::string::npos ? "" : part.substr(eq + 1), true);
    if (!name || !value) throw BadQuery{"query: broken %-escape in '" + part + "'"};
    bool known = false;
    for (const std::string& a : allowed) known |= a == *name;
    if (!known) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw BadQuery{"query parameter '" + *name + "' is not one of " + list};
    }
    out[*name] = *value;
  }
  return out;
}

std::uint64_t parse_unsigned(const std::string& field, const std::string& text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    throw BadQuery{field + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got '" +
                   text + "'"};
  return v;
}

// "namespace/model_id" (the id may hold '/').
ModelKey parse_model(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size())
    throw BadQuery{"model must be 'namespace/model_id', got '" + text + "'"};
  return {text.substr(0, slash), text.substr(slash + 1)};
}

EventQuery event_query(const HttpRequest& req, bool decisions) {
  const auto q = decisions ? parse_query(req.query, {"from_seq", "limit", "model", "since", "pending"})
                           : parse_query(req.query, {"from_seq", "limit", "model", "type", "since"});
  EventQuery out;
  if (auto it = q.find("from_seq"); it != q.end())
    out.from_seq = parse_unsigned("from_seq", it->second, 1, std::numeric_limits<std::uint64_t>::max());
  if (auto it = q.find("limit"); it != q.end()) out.limit = parse_unsigned("limit", it->second, 1, kMaxPage);
  if (auto it = q.find("model"); it != q.end()) out.model = parse_model(it->second);
  if (auto it = q.find("type"); it != q.end()) out.type = it->second;
  if (decisions) out.type = "decision";
  if (auto it = q.find("since"); it != q.end()) {
    char* end = nullptr;
    const double since = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end != '\0' || !std::isfinite(since))
      throw BadQuery{"since must be a time in seconds (the events' time_s), got '" + it->second + "'"};
    out.since_s = since;
  }
  return out;
}

// Wraps a handler: a BadQuery becomes 400.
http::HttpHandler checked(std::function<HttpResponse(const HttpRequest&)> handler) {
  return [handler = std::move(handler)](const HttpRequest& req) {
    try {
      return handler(req);
    } catch (const BadQuery& e) {
      return json_error(400, e.message);
    }
  };
}

http::HttpRouter json_router() {
  http::HttpRouter router;
  router.set_error_format(json_error);
  return router;
}

HttpResponse events_response(const StateProvider& state, const EventQuery& query) {
  auto page = state.events(query);
  if (!page) return json_error(page.error().code == ErrorCode::kInvalidArgument ? 400 : 503, page.error().message);
  return http::json_response(200, std::move(page).value());
}

// ?pending=true: the advisory queue, for one model if ?model= says so; nullopt for the
// recorded decisions (no pending, or pending=false).
std::optional<std::optional<ModelKey>> pending_query(const HttpRequest& req) {
  const auto q = parse_query(req.query, {"from_seq", "limit", "model", "since", "pending"});
  const auto it = q.find("pending");
  if (it == q.end() || it->second == "false") return std::nullopt;
  if (it->second != "true") throw BadQuery{"pending must be true or false, got '" + it->second + "'"};
  for (const char* other : {"from_seq", "limit", "since"})
    if (q.count(other)) throw BadQuery{std::string(other) + " does not apply with pending=true"};
  const auto model = q.find("model");
  return std::optional<ModelKey>(model == q.end() ? std::nullopt : std::optional<ModelKey>(parse_model(model->second)));
}

// The body of an approval or rejection: {"reason": "...", "by": "..."}; reason is
// required and not blank, by optional. A BadQuery names the field at fault.
Verdict verdict(const HttpRequest& req, bool approve) {
  const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object())
    throw BadQuery{"body must be a JSON object {\"reason\": \"...\", \"by\": \"...\"}"};
  for (const auto& [key, value] : body.items())
    if (key != "reason" && key != "by") throw BadQuery{"body: unknown field '" + key + "' (reason, by)"};
  const auto text = [&](const char* field) -> std::string {
    const auto it = body.find(field);
    if (it == body.end()) return "";
    if (!it->is_string()) throw BadQuery{std::string(field) + " must be a string"};
    return it->get<std::string>();
  };
  Verdict v{approve, text("by"), text("reason")};
  if (v.reason.find_first_not_of(" \t\r\n") == std::string::npos)
    throw BadQuery{"reason is required: say why the decision is " + std::string(approve ? "approved" : "rejected")};
  if (body.contains("by") && v.by.find_first_not_of(" \t\r\n") == std::string::npos)
    throw BadQuery{"by must name who decides, or be left out"};
  if (v.by.empty()) v.by = "admin token holder";
  return v;
}

HttpResponse reply_response(const Reply& reply) {
  if (reply.status >= 400) return json_error(reply.status, reply.error);
  return http::json_response(reply.status, reply.body.dump() + "\n");
}

// Compares every byte rather than stopping at the first difference, so the time taken
// says nothing of how much of the token was right (only of its length).
bool same_secret(const std::string& given, const std::string& token) {
  if (given.size() != token.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

// 401 unless the request carries `Authorization: Bearer <token>`.
std::function<std::optional<HttpResponse>(const HttpRequest&)> bearer_guard(std::string token, http::HttpRouter router) {
  return [token = std::move(token), router = std::move(router)](const HttpRequest& req) -> std::optional<HttpResponse> {
    const std::string prefix = "Bearer ";
    if (req.authorization.rfind(prefix, 0) == 0 && same_secret(req.authorization.substr(prefix.size()), token))
      return std::nullopt;
    HttpResponse res = router.error(401, req.authorization.empty() ? "this path needs Authorization: Bearer <token>"
                                                                   : "the bearer token is not the admin token");
    res.headers.emplace_back("WWW-Authenticate", "Bearer");
    return res;
  };
}

}  // namespace

Result<std::optional<BindAddress>> parse_bind(const std::string& field, const std::string& text) {
  if (text.empty() || text == "0") return std::optional<BindAddress>{};
  const std::size_t colon = text.rfind(':');
  const auto bad = [&](const std::string& why) {
    return invalid_argument(field + ": " + why + " (host:port, :port for every interface, \"\" or 0 for off), got '" +
                            text + "'");
  };
  if (colon == std::string::npos) return bad("no port");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535)
    return bad("the port must be 0..65535");
  return std::optional<BindAddress>{BindAddress{host, static_cast<unsigned short>(port)}};
}

Result<std::string> read_token_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_argument("admin_token_file: cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = ss.str();
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  if (token.empty()) return invalid_argument("admin_token_file: '" + path + "' holds no token");
  return token;
}

http::HttpRouter api_router(std::shared_ptr<const StateProvider> state, bool has_token) {
  http::HttpRouter r = json_router();
  r.add("GET", "/api/v1/models", checked([state](const HttpRequest& req) {
          const auto q = parse_query(req.query, {"limit", "after"});
          ModelPage page;
          if (auto it = q.find("limit"); it != q.end()) page.limit = parse_unsigned("limit", it->second, 1, kMaxPage);
          if (auto it = q.find("after"); it != q.end()) page.after = parse_model(it->second);
          return http::json_response(200, state->models(page));
        }));
  r.add("GET", "/api/v1/models/{namespace}/{model}", checked([state](const HttpRequest& req) {
          parse_query(req.query, {});
          const auto ns = percent_decode(req.params.at("namespace"), false);
          const auto id = percent_decode(req.params.at("model"), false);
          if (!ns || !id) throw BadQuery{"path: broken %-escape in " + req.path};
          auto detail = state->model({*ns, *id});
          if (!detail) return json_error(404, "no model " + *ns + "/" + *id + " (a model id with '/' is sent as %2F)");
          return json_ok(*detail);
        }));
  r.add("GET", "/api/v1/events",
        checked([state](const HttpRequest& req) { return events_response(*state, event_query(req, false)); }));
  r.add("GET", "/api/v1/decisions", checked([state](const HttpRequest& req) {
          const auto pending = pending_query(req);
          if (!pending) return events_response(*state, event_query(req, true));
          return reply_response(state->pending_decisions(*pending));
        }));
  for (const bool approve : {true, false}) {
    r.add("POST", approve ? "/api/v1/decisions/{id}/approve" : "/api/v1/decisions/{id}/reject",
          checked([state, has_token, approve](const HttpRequest& req) {
            if (!has_token)
              return json_error(403, "approving or rejecting a decision changes the fleet: it needs the API's bearer "
                                     "token (start the daemon with --admin-token-file)");
            parse_query(req.query, {});
            const std::string& id_text = req.params.at("id");
            std::uint64_t id = 0;
            const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
            if (ec != std::errc() || end != id_text.data() + id_text.size() || id == 0)
              return json_error(404, "no decision '" + id_text + "': an id is a decision event's seq, as ?pending=true lists");
            return reply_response(state->review_decision(id, verdict(req, approve)));
          }));
  }
  r.add("GET", "/api/v1/config", checked([state](const HttpRequest& req) {
          parse_query(req.query, {});
          return json_ok(state->config());
        }));
  return r;
}

http::HttpRouter metrics_router(std::shared_ptr<const StateProvider> state) {
  http::HttpRouter r = json_router();
  r.add("GET", "/metrics", [state](const HttpRequest&) {
    HttpResponse res = http::text_response(200, state->metrics());
    res.content_type = kPrometheusContentType;
    return res;
  });
  return r;
}

http::HttpRouter health_router(std::shared_ptr<const StateProvider> state) {
  http::HttpRouter r = json_router();
  r.add("GET", "/healthz", [](const HttpRequest&) { return json_ok({{"status", "ok"}}); });
  r.add("GET", "/readyz", [state](const HttpRequest&) {
    const Readiness ready = state->readiness();
    return http::json_response(ready.ready ? 200 : 503,
                               nlohmann::json{{"ready", ready.ready}, {"reasons", ready.reasons}}.dump() + "\n");
  });
  return r;
}

struct AdminServer::Io {
  boost::asio::io_context context{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(context);
};

AdminServer::AdminServer(std::shared_ptr<const StateProvider> state, AdminOptions options)
    : state_(std::move(state)), options_(std::move(options)), io_(std::make_unique<Io>()) {}

AdminServer::~AdminServer() { stop(); }

Result<std::vector<std::string>> AdminServer::start() {
  struct Role {
    const char* name;
    const char* field;
    std::string bind;
    http::HttpRouter router;
  };
  Role roles[] = {{"admin api", "admin_bind", options_.api_bind, api_router(state_, !options_.token.empty())},
                  {"metrics", "metrics_bind_address", options_.metrics_bind, metrics_router(state_)},
                  {"health probes", "health_probe_bind_address", options_.health_bind, health_router(state_)}};
  std::vector<std::optional<BindAddress>> addresses;
  for (const Role& role : roles) {
    auto address = parse_bind(role.field, role.bind);
    if (!address) return address.error();
    addresses.push_back(*address);
  }
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!addresses[i]) continue;
    http::HttpServerOptions o = options_.limits;
    o.address = addresses[i]->host;
    o.port = addresses[i]->port;
    // Every path but the probes needs the token when one is set: /metrics too.
    if (!options_.token.empty() && i < 2) o.guard = bearer_guard(options_.token, roles[i].router);
    auto server = std::make_unique<http::HttpServer>(io_->context, std::move(roles[i].router), o);
    auto port = server->listen();
    if (!port) {
      notes.push_back(std::string(roles[i].name) + " off: " + port.error().message);
      continue;
    }
    ports_[i] = port.value();
    notes.push_back(std::string(roles[i].name) + " on http://" +
                    (o.address.find(':') != std::string::npos ? "[" + o.address + "]" : o.address) + ":" +
                    std::to_string(port.value()));
    servers_.push_back(std::move(server));
  }
  thread_ = std::thread([io = io_.get()] { io->context.run(); });
  return notes;
}

void AdminServer::stop() {
  if (!thread_.joinable()) return;
  boost::asio::post(io_->context, [this] {
    for (auto& s : servers_) s->stop();
    io_->work.reset();
  });
  thread_.join();
  servers_.clear();
}

}  // namespace capstan::admin
