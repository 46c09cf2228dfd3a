// The HTML report of `capstan scenarios run --report`: one self-contained file (no
// scripts, no network) with the policy x scenario matrix, then per scenario and
// policy the checks (figure, limit, pass/fail), an inline SVG of the replica count
// and the p99 TTFT per tick against the SLO, and the decisions that changed a count
// with their reasons.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/scenario_runner.hpp"

namespace capstan::sim {

// `slo_ttft_ms` per result, in the order of `results`.
std::string render_scenarios_html(const std::vector<ScenarioResult>& results,
                                  const std::vector<double>& slo_ttft_ms, const std::string& command);

}  // namespace capstan::sim
