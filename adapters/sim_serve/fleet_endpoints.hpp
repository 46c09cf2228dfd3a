// The HTTP face of a LiveFleet (`capstan sim serve`): each simulated pod's vLLM
// /metrics under its own path, the router's (EPP) metrics, the pod list, and the
// Kubernetes Scale subresource of each variant's Deployment, so Prometheus and a
// Kubernetes actuator can be pointed at the simulator unchanged.
//   GET   /healthz                                              -> "ok"
//   GET   /pods                                                 -> [{name, variant, state, metrics_path}]
//   GET   /metrics/pods/{pod}                                   -> Prometheus text; 404 unknown or gone
//   GET   /metrics/router                                       -> Prometheus text
//   GET   /apis/apps/v1/namespaces/{ns}/deployments/{name}/scale -> autoscaling/v1 Scale
//   PATCH (same path), merge-patch {"spec":{"replicas":N}}      -> updated Scale; 400/404/415 Status
// Any namespace is accepted; a deployment is a variant of the fleet, by name.
#pragma once

#include "adapters/http/http_router.hpp"
#include "adapters/sim_serve/live_fleet.hpp"

namespace capstan::sim_serve {

// The routes call `fleet`, which must outlive the router.
void add_fleet_routes(http::HttpRouter& router, LiveFleet& fleet);

}  // namespace capstan::sim_serve
