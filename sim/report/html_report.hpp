// The HTML report of `capstan simulate`: one self-contained file (uPlot and the data
// inlined, no network) with the summary table, then one panel per policy with three
// time plots over the run -- demand (arrival rate) with replicas and ready replicas
// per variant, TTFT p50/p99 and ITL p50/p99 of the requests finished in each tick
// against the SLO -- and the policy's scale decisions with their reasons.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/harness.hpp"
#include "sim/oracle.hpp"

namespace capstan::sim {

// `summary` is summary_json()'s document; `command` is echoed at the top.
std::string render_html_report(const nlohmann::json& summary, const std::vector<PolicyRun>& runs,
                               const std::string& command);

// The per-tick series of one run as the report's script reads it (null latencies for
// ticks in which nothing completed; only decisions that change a count).
nlohmann::json series_json(const PolicyRun& run);

}  // namespace capstan::sim
