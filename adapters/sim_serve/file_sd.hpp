// Prometheus file-based service discovery for the simulated pods: the target list
// ([{"targets":["host:port"],"labels":{"__metrics_path__":..,"pod":..,"variant":..}}])
// and its atomic replacement (write a temporary file beside it, then rename), so
// Prometheus never reads a half-written file. Only pods whose model server is up
// (ready or draining) are targets: a pending or loading pod has no /metrics yet.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/sim_serve/live_fleet.hpp"
#include "domain/core/result.hpp"

namespace capstan::sim_serve {

std::string pod_metrics_path(const std::string& pod);

bool is_scrape_target(const LivePod& pod);

nlohmann::json file_sd_targets(const std::string& host_port, const std::vector<LivePod>& pods);

// Writes `text` to `path` through `path`.tmp and rename(2). Errors name the path.
Result<bool> write_file_atomically(const std::string& path, const std::string& text);

}  // namespace capstan::sim_serve
