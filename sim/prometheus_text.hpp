// Renders a simulated replica or the router in the Prometheus text exposition format
// (version 0.0.4) under the names real servers use: vLLM's vllm:* metrics for a
// replica, the llm-d inference extension's for the router. A later HTTP server can
// serve these strings as /metrics. Forward-pass metrics, which vLLM does not export,
// are under capstan_sim:forward_pass_*, and the router's decode queue of a disaggregated
// fleet under capstan_sim:decode_queue_size.
#pragma once

#include <string>

#include "sim/replica.hpp"
#include "sim/router.hpp"

namespace capstan::sim {

std::string render_replica_metrics(const Replica& replica, const std::string& model_name);
std::string render_router_metrics(const Router& router, const std::string& model_name);

}  // namespace capstan::sim
