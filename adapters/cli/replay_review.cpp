#include "adapters/cli/replay_review.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

#include "adapters/cli/replay_flags.hpp"
#include "adapters/cli/usage_error.hpp"
#include "replay/timeline.hpp"
#include "replay/verify.hpp"

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
  print_verify(report.value(), std::cout);
  std::cout.flush();
  return report.value().all_match() ? 0 : 1;
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
  timeline->add_option("--variant", t->variant, "only this variant");
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
}

}  // namespace capstan::cli
