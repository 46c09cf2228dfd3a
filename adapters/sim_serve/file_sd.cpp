// Prometheus file-SD targets; see file_sd.hpp.
#include "adapters/sim_serve/file_sd.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace capstan::sim_serve {

std::string pod_metrics_path(const std::string& pod) { return "/metrics/pods/" + pod; }

bool is_scrape_target(const LivePod& pod) { return pod.state == "ready" || pod.state == "draining"; }

nlohmann::json file_sd_targets(const std::string& host_port, const std::vector<LivePod>& pods) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& pod : pods) {
    if (!is_scrape_target(pod)) continue;
    out.push_back({{"targets", {host_port}},
                   {"labels", {{"__metrics_path__", pod_metrics_path(pod.name)},
                               {"pod", pod.name},
                               {"variant", pod.variant}}}});
  }
  return out;
}

Result<bool> write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return invalid_argument("cannot write '" + tmp + "': " + std::strerror(errno));
    out << text;
    out.close();
    if (!out) return invalid_argument("cannot write '" + tmp + "': " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    return invalid_argument("cannot rename '" + tmp + "' to '" + path + "': " + reason);
  }
  return true;
}

}  // namespace capstan::sim_serve
