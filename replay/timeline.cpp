#include "replay/timeline.hpp"

#include <algorithm>
#include <cstdio>


namespace capstan::replay {

namespace {

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// A figure that may be missing in a row: "-" in the table, empty in CSV.
std::string num_or(const std::optional<double>& v, const char* none) { return v ? num(*v) : none; }

std::string stages_text(const std::vector<StageApplied>& stages) {
  std::string out;
  for (const StageApplied& s : stages)
    out += (out.empty() ? "" : ",") + std::string(to_string(s.stage)) + ":" + std::to_string(s.before) + "->" +
           std::to_string(s.after);
  return out;
}

std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The figures of a row both flat formats print, in column order.
std::vector<std::string> flat_fields(const DecisionRecord& r, const char* none) {
  const auto& c = r.capacity;
  const auto& p = r.params;
  const auto& f = r.forecast;
  auto opt = [](bool has, double v) { return has ? std::optional<double>(v) : std::nullopt; };
  return {num(r.time_s),
          std::to_string(r.tick),
          model_name(r.decision.model),
          r.decision.variant,
          std::to_string(r.decision.current_replicas),
          std::to_string(r.decision.target_replicas),
          to_string(r.decision.reason.code),
          num_or(opt(c.has_value(), c ? c->slo.ttft_ms : 0), none),
          num_or(opt(c.has_value(), c ? c->slo.itl_ms : 0), none),
          c ? c->slo_source : none,
          num_or(opt(p.has_value(), p ? p->params.alpha_ms : 0), none),
          num_or(opt(p.has_value(), p ? p->params.beta_ms : 0), none),
          num_or(opt(p.has_value(), p ? p->params.gamma_ms : 0), none),
          num_or(opt(c.has_value(), c ? c->lambda_star_rps : 0), none),
          num_or(opt(c.has_value(), c ? c->per_replica_rps : 0), none),
          num_or(opt(c.has_value(), c ? c->required_replicas : 0), none),
          num_or(opt(c.has_value(), c ? c->demand_rps : 0), none),
          num_or(opt(f.has_value(), f ? f->observed_rps : 0), none),
          num_or(opt(f.has_value(), f ? f->rate_rps : 0), none),
          stages_text(r.stages).empty() && *none ? none : stages_text(r.stages),
          r.decision.reason.text()};
}

const std::vector<std::string>& flat_header() {
  static const std::vector<std::string> header{
      "time_s",  "tick",     "model",      "variant",         "current",         "target",   "reason",
      "slo_ttft_ms", "slo_itl_ms", "slo_source", "alpha_ms", "beta_ms",  "gamma_ms", "lambda_star_rps",
      "per_replica_rps", "required", "demand_rps", "observed_rps", "forecast_rps", "stages", "reason_text"};
  return header;
}

// Widths fit the usual figures and the header; a wider value pushes its line, never truncates.
void write_table_line(const std::vector<std::string>& fields, const std::vector<std::size_t>& widths, std::ostream& out) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    std::string cell = fields[i];
    if (i < widths.size() && i + 1 < fields.size() && cell.size() < widths[i]) cell.resize(widths[i], ' ');
    line += cell + (i + 1 < fields.size() ? " " : "");
  }
  out << line << "\n";
}

Result<std::uint64_t> write_events(const storage::EventStore& store, const TimelineOptions& o, std::ostream& out) {
  storage::EventFilter scan;
  scan.from_seq = o.filter.range.from_seq;
  scan.to_seq = o.filter.range.to_seq;
  scan.from_time_s = o.filter.range.from_time_s;
  scan.to_time_s = o.filter.range.to_time_s;
  scan.model = o.filter.model;
  scan.type = o.type;
  std::uint64_t rows = 0;
  if (o.format == "csv") out << "seq,time_s,type,model,payload\n";
  const std::vector<std::size_t> widths{8, 9, 18, 30};
  if (o.format == "table") write_table_line({"seq", "time_s", "type", "model", "payload"}, widths, out);
  auto ran = store.for_each(scan, [&](const storage::Event& e) {
    const nlohmann::json j = storage::event_to_json(e);
    if (o.filter.variant && j.at("payload").is_object()) {
      const auto& payload = j.at("payload");
      const auto v = payload.find("variant");
      if (v != payload.end() && v->is_string() && v->get<std::string>() != *o.filter.variant) return true;
    }
    const auto* model = storage::event_model_of(e.payload);
    const std::string payload = j.at("payload").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (o.format == "json") {
      out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else if (o.format == "csv") {
      out << e.seq << "," << num(e.time_s) << "," << o.type << "," << (model ? model_name(*model) : "") << ","
          << csv_quoted(payload) << "\n";
    } else {
      write_table_line({std::to_string(e.seq), num(e.time_s), o.type, model ? model_name(*model) : "-", payload}, widths,
                       out);
    }
    ++rows;
    return true;
  });
  if (!ran.ok()) return ran.error();
  return rows;
}

}  // namespace

nlohmann::json timeline_json(const DecisionRecord& r) {
  using nlohmann::json;
  json out = {{"seq", r.seq},
              {"tick", r.tick},
              {"time_s", r.time_s},
              {"model", model_name(r.decision.model)},
              {"variant", r.decision.variant},
              {"current", r.decision.current_replicas},
              {"target", r.decision.target_replicas},
              {"reason", to_string(r.decision.reason.code)},
              {"reason_text", r.decision.reason.text()},
              {"slo", nullptr},
              {"params", nullptr},
              {"capacity", nullptr},
              {"forecast", nullptr},
              {"stages", json::array()}};
  if (r.capacity) {
    const CapacitySized& c = *r.capacity;
    out["slo"] = {{"ttft_ms", c.slo.ttft_ms}, {"itl_ms", c.slo.itl_ms}, {"source", c.slo_source}};
    out["capacity"] = {{"lambda_star_rps", c.lambda_star_rps}, {"per_replica_rps", c.per_replica_rps},
                       {"bound", c.bound},                     {"demand_rps", c.demand_rps},
                       {"required_replicas", c.required_replicas}};
  }
  if (r.params)
    out["params"] = {{"alpha_ms", r.params->params.alpha_ms}, {"beta_ms", r.params->params.beta_ms},
                     {"gamma_ms", r.params->params.gamma_ms}, {"nis", r.params->nis},
                     {"accepted", r.params->accepted},        {"source", r.params->source}};
  if (r.forecast)
    out["forecast"] = {{"predictor", r.forecast->predictor}, {"horizon_s", r.forecast->horizon_s},
                       {"rate_rps", r.forecast->rate_rps},   {"observed_rps", r.forecast->observed_rps}};
  for (const StageApplied& s : r.stages)
    out["stages"].push_back({{"stage", to_string(s.stage)}, {"before", s.before}, {"after", s.after},
                             {"code", to_string(s.code)}});
  return out;
}

Result<std::uint64_t> write_timeline(const storage::EventStore& store, const TimelineOptions& o, std::ostream& out) {
  if (o.type != "decision") return write_events(store, o, out);
  std::uint64_t rows = 0;
  if (o.format == "csv") {
    std::string line;
    for (const std::string& h : flat_header()) line += (line.empty() ? "" : ",") + h;
    out << line << "\n";
  }
  std::vector<std::size_t> widths{9, 5, 30, 16, 7, 6, 12, 11, 10, 10, 9, 9, 11, 15, 15, 8, 10, 12, 12, 18};
  for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], flat_header()[i].size());
  if (o.format == "table") write_table_line(flat_header(), widths, out);
  auto ran = for_each_decision(store, o.filter, [&](DecisionRecord& r) {
    if (o.format == "json") {
      out << timeline_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else if (o.format == "csv") {
      std::vector<std::string> fields = flat_fields(r, "");
      std::string line;
      for (std::size_t i = 0; i < fields.size(); ++i)
        line += (i ? "," : "") + (i == 2 || i == 3 || i + 2 >= fields.size() ? csv_quoted(fields[i]) : fields[i]);
      out << line << "\n";
    } else {
      write_table_line(flat_fields(r, "-"), widths, out);
    }
    ++rows;
    return static_cast<bool>(out);
  });
  if (!ran.ok()) return ran.error();
  return rows;
}

}  // namespace capstan::replay
