// `capstan replay timeline` (issue 23): the recorded decisions in time order, one line
// each, with what they were made from: reason, SLO targets and their source, learned
// parameters, capacity and demand (recorded_decisions.hpp). With an event type other
// than "decision", that type's recorded events one a line instead.
//
// Formats: "table" (aligned columns for a terminal), "json" (one object a line),
// "csv" (a header, then one row a decision). Numbers print with %.6g in the table and
// CSV, exactly in JSON.
#pragma once

#include <ostream>
#include <string>

#include "replay/recorded_decisions.hpp"

namespace capstan::replay {

struct TimelineOptions {
  DecisionFilter filter;
  std::string type = "decision";  // any storage::known_event_types() name
  std::string format = "table";   // "table" | "json" | "csv"
};

// The decision as one JSON object: {"seq", "tick", "time_s", "model", "variant",
// "current", "target", "reason", "reason_text", "slo": {ttft_ms, itl_ms, source},
// "params": {alpha_ms, beta_ms, gamma_ms, nis, accepted} | null, "capacity": {...} | null,
// "forecast": {...} | null, "stages": [{stage, before, after, code}]}.
nlohmann::json timeline_json(const DecisionRecord& r);

// Writes the rows; returns how many. The caller validates type and format.
Result<std::uint64_t> write_timeline(const storage::EventStore& store, const TimelineOptions& options, std::ostream& out);

}  // namespace capstan::replay
