#include "adapters/cli/replay_review.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

#include "adapters/cli/output_file.hpp"
#include "adapters/cli/replay_flags.hpp"
#include "adapters/cli/run_command.hpp"
#include "adapters/cli/usage_error.hpp"
#include "config/daemon_config.hpp"
#include "domain/policies/policy.hpp"
#include "replay/explain.hpp"
#include "replay/report.hpp"
#include "replay/timeline.hpp"
#include "replay/verify.hpp"
#include "replay/what_if.hpp"

namespace capstan::cli {
namespace {

struct TimelineFlags {
  std::string data;
  std::string model, variant;
  RangeFlags range;
  std::string type = "decision";
  std::string format = "table";
};

int run_timeline(const TimelineFlags& f) {
  replay::TimelineOptions o;
  o.filter.range = parse_range_flags(f.range);
  o.filter.model = parse_model_flag("--model", f.model);
  if (!f.variant.empty()) o.filter.variant = f.variant;
  require_event_type("--type", f.type);
  o.type = f.type;
  if (f.format != "table" && f.format != "json" && f.format != "csv")
    throw UsageError("--format must be table, json or csv, got '" + f.format + "'");
  o.format = f.format;
  auto store = open_replay_store(f.data);
  if (o.filter.model) require_recorded_model(*store, "--model", *o.filter.model);
  auto rows = replay::write_timeline(*store, o, std::cout);
  std::cout.flush();
  if (!rows.ok()) {
    std::cerr << "capstan: replay timeline: " << rows.error().message << "\n";
    return 1;
  }
  std::cerr << rows.value() << " " << (f.type == "decision" ? "decisions" : f.type + " events") << " from " << f.data
            << "\n";
  return 0;
}

struct VerifyFlags {
  std::string data;
  RangeFlags range;
  std::size_t show = 10;
};

void print_verify(const replay::VerifyReport& r, std::ostream& out) {
  out << "replay verify: policy " << r.policy << ", folded from "
      << (r.start_seq == 0 ? std::string("the empty fleet before the first event")
                           : "the snapshot at seq " + std::to_string(r.start_seq))
      << "\n";
  out << "ticks: " << r.ticks_folded << " folded, " << r.ticks_compared << " compared\n";
  char line[160];
  std::snprintf(line, sizeof line, "events: %llu compared, %llu match bit for bit (%.4f%%)\n",
                static_cast<unsigned long long>(r.events_compared), static_cast<unsigned long long>(r.events_matched),
                r.events_compared ? 100.0 * static_cast<double>(r.events_matched) / static_cast<double>(r.events_compared)
                                  : 100.0);
  out << line;
  for (const auto& [type, count] : r.by_type) {
    std::snprintf(line, sizeof line, "  %-20s %llu / %llu\n", type.c_str(), static_cast<unsigned long long>(count.matched),
                  static_cast<unsigned long long>(count.compared));
    out << line;
  }
  if (r.all_match()) {
    out << "OK: every recomputed event matches the recorded one\n";
    return;
  }
  out << "DIVERGED: " << r.divergences << " events differ; the first " << r.first.size() << ":\n";
  for (const replay::Divergence& d : r.first) {
    std::snprintf(line, sizeof line, "  seq %llu  tick %llu  t=%gs  %s  %s\n", static_cast<unsigned long long>(d.seq),
                  static_cast<unsigned long long>(d.tick), d.time_s, d.type.c_str(), d.subject.c_str());
    out << line;
    out << "    recorded:   " << (d.recorded.empty() ? "(none)" : d.recorded) << "\n";
    out << "    recomputed: " << (d.recomputed.empty() ? "(none)" : d.recomputed) << "\n";
  }
}

int run_verify(const VerifyFlags& f) {
  const replay::ReplayRange range = parse_range_flags(f.range);
  auto store = open_replay_store(f.data);
  auto report = replay::verify(*store, range, f.show);
  if (!report.ok()) {
    std::cerr << "capstan: replay verify: " << report.error().message << "\n";
    return 1;
  }
  if (report.value().ticks_compared == 0)
    throw UsageError("--from-seq/--to-seq/--from/--to: no recorded tick starts in the range (the store's last event is seq " +
                     std::to_string(store->last_sequence()) + ")");
  print_verify(report.value(), std::cout);
  std::cout.flush();
  return report.value().all_match() ? 0 : 1;
}

struct WhatIfFlags {
  std::string data;
  std::string config;
  std::string policy;
  RangeFlags range;
  std::size_t show = 20;
};

// The configuration a daemon would run under from FILE alone (defaults < file), with its
// sim fleet's serving-side defaults, as `capstan run --config FILE` builds it.
actors::ConfigUpdate what_if_config(const std::string& file) {
  config::ConfigSources sources;
  sources.file = file;
  auto effective = config::load_config(sources);
  if (!effective.ok()) throw UsageError("--config: " + effective.error().message);
  std::vector<sim::FleetConfig> fleets;
  if (!effective.value().config.sim_fleet.empty()) {
    auto fleet = sim::load_fleet_config(effective.value().config.sim_fleet);
    if (!fleet.ok()) throw UsageError("--config: sim_fleet: " + fleet.error().message);
    fleets.push_back(std::move(fleet).value());
  }
  return to_update(effective.value(), fleets);
}

std::string slo_text(const std::optional<CapacitySized>& c) {
  if (!c) return "-";
  char text[96];
  std::snprintf(text, sizeof text, "TTFT %g ms, ITL %g ms (%s)", c->slo.ttft_ms, c->slo.itl_ms, c->slo_source.c_str());
  return text;
}

std::string decision_text(const Decision& d) {
  if (d.variant.empty()) return "(no decision)";
  return std::to_string(d.current_replicas) + " -> " + std::to_string(d.target_replicas) + " [" +
         to_string(d.reason.code) + "] " + d.reason.text();
}

void print_what_if(const replay::WhatIfReport& r, const std::string& config, std::ostream& out) {
  out << "replay what-if: recorded policy " << r.recorded_policy << " -> " << r.what_if_policy << ", under "
      << (config.empty() ? std::string("the recorded configuration") : config) << ", " << r.ticks << " ticks\n";
  out << "note: this replays the demand and fleet that were observed; it does not model the demand, queues and "
         "latencies that a differently sized fleet would have produced.\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-45s %9s %9s %9s %9s  %s\n", "variant", "rec rep-h", "what-if", "delta",
                "changed", "SLO recorded -> what-if");
  out << line;
  for (const replay::VariantDifference& v : r.variants) {
    const std::string name = replay::variant_name(v.model, v.variant);
    const std::string changed = std::to_string(v.changed) + "/" + std::to_string(v.decisions);
    std::snprintf(line, sizeof line, "%-45s %9.3f %9.3f %+9.3f %9s  %s -> %s\n", name.c_str(), v.recorded_replica_hours,
                  v.what_if_replica_hours, v.what_if_replica_hours - v.recorded_replica_hours, changed.c_str(),
                  slo_text(v.recorded_last).c_str(), slo_text(v.what_if_last).c_str());
    out << line;
  }
  out << "\ndecisions that would change (target or reason): " << r.changed;
  if (r.changed > r.changes.size()) out << " (the first " << r.changes.size() << ")";
  out << "\n";
  for (const replay::ChangedDecision& c : r.changes) {
    std::snprintf(line, sizeof line, "  t=%gs tick %llu %s\n", c.time_s, static_cast<unsigned long long>(c.tick),
                  replay::variant_name(c.recorded.model, c.recorded.variant).c_str());
    out << line;
    out << "    recorded: " << decision_text(c.recorded) << "\n";
    out << "    what-if:  " << decision_text(c.what_if) << "\n";
  }
}

int run_what_if(const WhatIfFlags& f) {
  if (f.config.empty() && f.policy.empty()) throw UsageError("what-if needs --config FILE, --policy P or both");
  replay::WhatIfOptions o;
  o.range = parse_range_flags(f.range);
  o.max_changes = f.show;
  if (!f.policy.empty()) {
    auto policy = find_policy(f.policy);
    if (!policy.ok()) throw UsageError("--policy: " + policy.error().message);
    o.policy = f.policy;
  }
  if (!f.config.empty()) o.config = what_if_config(f.config);
  auto store = open_replay_store(f.data);
  auto report = replay::what_if(*store, o);
  if (!report.ok()) {
    std::cerr << "capstan: replay what-if: " << report.error().message << "\n";
    return 1;
  }
  print_what_if(report.value(), f.config, std::cout);
  std::cout.flush();
  return 0;
}

struct ExplainFlags {
  std::string data;
  std::string at;
  std::string model;
};

int run_explain(const ExplainFlags& f) {
  const double at_s = parse_time_flag("--at", f.at);
  const ModelKey model = *parse_model_flag("--model", f.model);
  auto store = open_replay_store(f.data);
  require_recorded_model(*store, "--model", model);
  auto decisions = replay::decisions_at(*store, model, at_s);
  if (!decisions.ok()) {
    std::cerr << "capstan: replay explain: " << decisions.error().message << "\n";
    return 1;
  }
  if (decisions.value().empty())
    throw UsageError("--at: " + replay::model_name(model) + " has no decision at or before t=" + f.at);
  replay::write_explanation(decisions.value(), at_s, std::cout);
  std::cout.flush();
  return 0;
}

struct ReportFlags {
  std::string data;
  std::string out;
  RangeFlags range;
};

int run_report(const ReportFlags& f, const std::string& command) {
  const replay::ReplayRange range = parse_range_flags(f.range);
  auto store = open_replay_store(f.data);  // before the output file: a bad --data must not truncate it
  auto series = replay::report_series(*store, range);
  if (!series.ok()) {
    std::cerr << "capstan: replay report: " << series.error().message << "\n";
    return 1;
  }
  auto out = open_output(f.out, "--out");
  *out << replay::render_replay_report(series.value(), f.data, command);
  out->close();
  if (!*out) {
    std::cerr << "capstan: replay report: writing " << f.out << " failed\n";
    return 1;
  }
  std::cerr << "wrote " << f.out << " (" << series.value().size() << " models)\n";
  return 0;
}

void add_range_options(CLI::App* cmd, RangeFlags& r, bool with_seq) {
  if (with_seq) {
    cmd->add_option("--from-seq", r.from_seq, "first sequence number of the range");
    cmd->add_option("--to-seq", r.to_seq, "last sequence number of the range");
  }
  cmd->add_option("--from", r.from, "start time: seconds, a duration (90m) or 2026-11-24T14:02:00Z");
  cmd->add_option("--to", r.to, "end time, as --from");
}

}  // namespace

void add_replay_review_commands(CLI::App& replay, int& exit_status) {
  auto t = std::make_shared<TimelineFlags>();
  CLI::App* timeline = replay.add_subcommand("timeline", "the recorded decisions and their inputs, one a line");
  timeline->add_option("--data", t->data, "the store's directory (capstan run --data-dir)")->required();
  timeline->add_option("--model", t->model, "only this model, NAMESPACE/MODEL_ID");
  timeline->add_option("--variant", t->variant, "only this variant (of the events that name one)");
  add_range_options(timeline, t->range, true);
  timeline->add_option("--type", t->type, "decision (default: with their inputs) or another event type");
  timeline->add_option("--format", t->format, "table (default), json or csv");
  timeline->callback([t, &exit_status] { exit_status = run_timeline(*t); });

  auto v = std::make_shared<VerifyFlags>();
  CLI::App* verify = replay.add_subcommand("verify", "re-run the recorded inputs and compare every recomputed event");
  verify->add_option("--data", v->data, "the store's directory (capstan run --data-dir)")->required();
  add_range_options(verify, v->range, true);
  verify->add_option("--show", v->show, "how many divergences to print (default 10)");
  verify->callback([v, &exit_status] { exit_status = run_verify(*v); });

  auto w = std::make_shared<WhatIfFlags>();
  CLI::App* what_if = replay.add_subcommand("what-if", "the recorded inputs under another configuration or policy");
  what_if->add_option("--data", w->data, "the store's directory (capstan run --data-dir)")->required();
  what_if->add_option("--config", w->config, "a capstan configuration file to replay under");
  what_if->add_option("--policy", w->policy, "a policy to replay under (default: the recorded one)");
  add_range_options(what_if, w->range, true);
  what_if->add_option("--show", w->show, "how many changed decisions to print (default 20)");
  what_if->callback([w, &exit_status] { exit_status = run_what_if(*w); });

  auto e = std::make_shared<ExplainFlags>();
  CLI::App* explain = replay.add_subcommand("explain", "the full reasoning of one model's decision at a time");
  explain->add_option("--data", e->data, "the store's directory (capstan run --data-dir)")->required();
  explain->add_option("--at", e->at, "the time: the last decision at or before it (seconds, 90m, or a UTC date-time)")
      ->required();
  explain->add_option("--model", e->model, "NAMESPACE/MODEL_ID")->required();
  explain->callback([e, &exit_status] { exit_status = run_explain(*e); });

  auto r = std::make_shared<ReportFlags>();
  CLI::App* report = replay.add_subcommand("report", "an offline HTML report with plots of the recorded history");
  report->add_option("--data", r->data, "the store's directory (capstan run --data-dir)")->required();
  report->add_option("--out", r->out, "the HTML file to write")->required();
  add_range_options(report, r->range, true);
  report->callback([r, &exit_status] {
    exit_status = run_report(*r, "capstan replay report --data " + r->data + " --out " + r->out);
  });
}

}  // namespace capstan::cli
