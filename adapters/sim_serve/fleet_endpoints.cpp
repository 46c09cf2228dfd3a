// Routes of `capstan sim serve`; see fleet_endpoints.hpp.
#include "adapters/sim_serve/fleet_endpoints.hpp"

#include <nlohmann/json.hpp>

#include "adapters/sim_serve/file_sd.hpp"
#include "adapters/sim_serve/kube_scale.hpp"

namespace capstan::sim_serve {
namespace {

constexpr const char* kPrometheusText = "text/plain; version=0.0.4; charset=utf-8";

http::HttpResponse prometheus(std::string text) {
  http::HttpResponse r = http::text_response(200, std::move(text));
  r.content_type = kPrometheusText;
  return r;
}

http::HttpResponse status_response(int code, const std::string& reason, const std::string& message,
                                   const std::string& name = "", const std::string& field = "") {
  return http::json_response(code, status_object(code, reason, message, name, field).dump() + "\n");
}

http::HttpResponse not_found_deployment(const std::string& ns, const std::string& name) {
  return status_response(404, "NotFound",
                         "deployments.apps \"" + name + "\" not found in namespace \"" + ns + "\"", name);
}

http::HttpResponse pods(const LiveFleet& fleet) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& pod : fleet.pods())
    out.push_back({{"name", pod.name},
                   {"variant", pod.variant},
                   {"state", pod.state},
                   {"metrics_path", pod_metrics_path(pod.name)}});
  return http::json_response(200, out.dump() + "\n");
}

http::HttpResponse get_scale(const LiveFleet& fleet, const http::HttpRequest& req) {
  const std::string& ns = req.params.at("ns");
  const std::string& name = req.params.at("name");
  const auto scale = fleet.scale(name);
  if (!scale) return not_found_deployment(ns, name);
  return http::json_response(200, scale_object(ns, name, scale->desired, scale->current).dump() + "\n");
}

http::HttpResponse patch_scale(LiveFleet& fleet, const http::HttpRequest& req) {
  const std::string& ns = req.params.at("ns");
  const std::string& name = req.params.at("name");
  if (!is_merge_patch(req.content_type))
    return status_response(415, "UnsupportedMediaType",
                           "the body of a PATCH must be application/merge-patch+json, got '" + req.content_type + "'",
                           name);
  if (!fleet.scale(name)) return not_found_deployment(ns, name);
  ScalePatchError error;
  const auto patch = parse_scale_patch(req.body, error);
  if (!patch.ok()) return status_response(400, "BadRequest", error.message, name, error.field);
  const auto scale = fleet.set_desired(name, patch.value().replicas);
  if (!scale.ok()) return status_response(400, "BadRequest", scale.error().message, name, "spec.replicas");
  return http::json_response(200, scale_object(ns, name, scale->desired, scale->current).dump() + "\n");
}

}  // namespace

void add_fleet_routes(http::HttpRouter& router, LiveFleet& fleet) {
  router.add("GET", "/healthz", [](const http::HttpRequest&) { return http::text_response(200, "ok\n"); });
  router.add("GET", "/pods", [&fleet](const http::HttpRequest&) { return pods(fleet); });
  router.add("GET", "/metrics/pods/{pod}", [&fleet](const http::HttpRequest& req) {
    auto text = fleet.pod_metrics(req.params.at("pod"));
    if (!text) return http::text_response(404, "no live pod named '" + req.params.at("pod") + "'\n");
    return prometheus(std::move(*text));
  });
  router.add("GET", "/metrics/router", [&fleet](const http::HttpRequest&) { return prometheus(fleet.router_metrics()); });
  const std::string scale_path = "/apis/apps/v1/namespaces/{ns}/deployments/{name}/scale";
  router.add("GET", scale_path, [&fleet](const http::HttpRequest& req) { return get_scale(fleet, req); });
  router.add("PATCH", scale_path, [&fleet](const http::HttpRequest& req) { return patch_scale(fleet, req); });
}

}  // namespace capstan::sim_serve
