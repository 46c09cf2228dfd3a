#include "adapters/cli/replay_command.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "adapters/cli/output_file.hpp"
#include "adapters/cli/replay_flags.hpp"
#include "adapters/cli/replay_review.hpp"
#include "adapters/cli/usage_error.hpp"
#include "replay/export.hpp"
#include "storage/event_store.hpp"

namespace capstan::cli {
namespace {

struct ExportFlags {
  std::string data;
  std::string out;
  std::optional<std::uint64_t> from_seq, to_seq;
  std::string type;
  std::string model;
};

storage::EventFilter filter_of(const ExportFlags& f) {
  storage::EventFilter filter;
  const replay::ReplayRange range = parse_range_flags({f.from_seq, f.to_seq, "", ""});
  filter.from_seq = range.from_seq;
  filter.to_seq = range.to_seq;
  if (!f.type.empty()) {
    require_event_type("--type", f.type);
    filter.type = f.type;
  }
  filter.model = parse_model_flag("--model", f.model);
  return filter;
}

int run_export(const ExportFlags& f) {
  const storage::EventFilter filter = filter_of(f);
  // The store first: a bad --data must not truncate the output file.
  auto store = open_replay_store(f.data);
  std::unique_ptr<std::ofstream> file = f.out == "-" ? nullptr : open_output(f.out, "--out");
  std::ostream& out = file ? static_cast<std::ostream&>(*file) : std::cout;
  const auto written = replay::export_events(*store, filter, out);
  if (!written) {
    std::cerr << "capstan: replay export: " << written.error().message << "\n";
    return 1;
  }
  std::cerr << "exported " << *written << " events from " << f.data << "\n";
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app, int& exit_status) {
  CLI::App* replay = app.add_subcommand("replay", "work on a recorded event store");
  replay->require_subcommand(1);
  auto f = std::make_shared<ExportFlags>();
  CLI::App* export_cmd = replay->add_subcommand("export", "every recorded event as one JSON line");
  export_cmd->add_option("--data", f->data, "the store's directory (capstan run --data-dir)")->required();
  export_cmd->add_option("--out", f->out, "JSON lines file to write; - for standard output")->required();
  export_cmd->add_option("--from-seq", f->from_seq, "first sequence number to export");
  export_cmd->add_option("--to-seq", f->to_seq, "last sequence number to export");
  export_cmd->add_option("--type", f->type, "only events of this type (e.g. decision)");
  export_cmd->add_option("--model", f->model, "only events of this model, NAMESPACE/MODEL_ID");
  export_cmd->callback([f, &exit_status] { exit_status = run_export(*f); });
  add_replay_review_commands(*replay, exit_status);
}

}  // namespace capstan::cli
