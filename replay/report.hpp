// `capstan replay report` (issue 23): one self-contained HTML file (uPlot and the data
// inlined, opens offline; the simulate report's page frame, sim/report/html_page.hpp)
// with, per model, plots over the recorded ticks of demand (observed and forecast) and
// each variant's current and target replicas, TTFT and ITL observed against what the
// learned queue model predicts at the observed per-replica rate, and the learned
// alpha, beta and gamma; then the decisions that changed a count, with their reasons.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "replay/recorded_decisions.hpp"

namespace capstan::replay {

// The per-model series the page's script plots:
// [{"model", "variants": [...], "t": [...], "demand_rps", "forecast_rps",
//   "current": [[per variant]], "target", "ttft_observed_ms", "ttft_predicted_ms",
//   "itl_observed_ms", "itl_predicted_ms", "alpha_ms", "beta_ms", "gamma_ms",
//   "decisions": [[t, variant, current, target, reason, text]]}]; null where a tick has no figure.
Result<nlohmann::json> report_series(const storage::EventStore& store, const ReplayRange& range);

// The page; `command` is echoed at the top.
std::string render_replay_report(const nlohmann::json& series, const std::string& data_dir, const std::string& command);

}  // namespace capstan::replay
