#include "adapters/cli/run_command.hpp"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "actors/daemon.hpp"
#include "actors/message_codec.hpp"
#include "adapters/admin/admin_server.hpp"
#include "adapters/cli/config_flags.hpp"
#include "adapters/cli/usage_error.hpp"
#include "adapters/fleet/dry_run_connector.hpp"
#include "adapters/fleet/simulated_fleet.hpp"
#include "config/daemon_config.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/policies/policy.hpp"
#include "sim/fleet_config.hpp"
#include "sim/policy_settings.hpp"
#include "sim/trace_open.hpp"

extern char** environ;

namespace capstan::cli {

static bool is_default(const config::EffectiveConfig& effective, const std::string& key) {
  const auto it = effective.origins.find(key);
  return it == effective.origins.end() || it->second.layer == config::Layer::kDefault;
}

actors::ConfigUpdate to_update(const config::EffectiveConfig& effective, std::span<const sim::FleetConfig> fleets) {
  config::DaemonConfig c = effective.config;
  static_cast<PolicySettings&>(c) =
      sim::with_fleet_settings(c, fleets,
                               {.client_timeout = !is_default(effective, "client_timeout_s"),
                                .hpa_target = !is_default(effective, "hpa_target_per_replica")});
  actors::ConfigUpdate update;
  update.policy = c.policy;
  update.fleet = policy_config(c);
  update.any_model = c.models.empty();
  update.await_approval = c.connector == "advisory";
  for (const config::ModelEntry& m : c.models)
    if (!m.any_namespace) update.models[m.key] = config::policy_config_for(c, m.key);
  update.applied = config::to_json(effective);
  return update;
}

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) { g_stop.store(true); }

struct RunFlags {
  std::shared_ptr<ConfigFlags> config;
  std::uint64_t max_ticks = 0;
  bool verbose = false;
};

// The demo's configuration: the run's own when it names a source, else the shipped one.
std::optional<std::string> demo_config_path() {
  for (const std::filesystem::path& dir : {std::filesystem::path("."), std::filesystem::path(CAPSTAN_SOURCE_DIR)}) {
    const auto path = dir / "ops/examples/capstan.yaml";
    if (std::filesystem::exists(path)) return path.string();
  }
  return std::nullopt;
}

std::string format_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

std::string decision_line(const actors::TickSummary& summary, const Decision& d) {
  char head[160];
  std::snprintf(head, sizeof head, "t=%7.0fs tick %-5llu %s/%s  %d -> %d  ", summary.now_s,
                static_cast<unsigned long long>(summary.tick), d.model.model_id.c_str(), d.variant.c_str(),
                d.current_replicas, d.target_replicas);
  return head + std::string(to_string(d.reason.code)) + ": " + d.reason.text();
}

void print_tick(const actors::TickSummary& summary, const std::string& format, bool verbose) {
  bool changed = false;
  for (const Decision& d : summary.decisions) {
    if (format == "json") {
      nlohmann::json line = {{"tick", summary.tick}, {"time_s", summary.now_s}, {"decision", encode_decision(d)}};
      std::cout << line.dump() << "\n";
      continue;
    }
    if (!verbose && d.current_replicas == d.target_replicas) continue;
    changed = true;
    std::cout << decision_line(summary, d) << "\n";
  }
  // A tick that changed nothing: one short line with every variant's count.
  if (format != "json" && !changed && !summary.decisions.empty()) {
    char head[64];
    std::snprintf(head, sizeof head, "t=%7.0fs tick %-5llu hold", summary.now_s,
                  static_cast<unsigned long long>(summary.tick));
    std::cout << head;
    for (const Decision& d : summary.decisions) std::cout << "  " << d.variant << " " << d.target_replicas;
    std::cout << "\n";
  }
  for (const std::string& incident : summary.incidents) {
    if (format == "json")
      std::cout << nlohmann::json{{"tick", summary.tick}, {"time_s", summary.now_s}, {"incident", incident}}.dump() << "\n";
    else
      std::cout << "t=" << summary.now_s << "s tick " << summary.tick << "  incident: " << incident << "\n";
  }
  std::cout.flush();
}

void run(const RunFlags& f, int& status) {
  config::ConfigSources sources = config_sources(*f.config, environ);
  if (!sources.file && !sources.configmap_dir) {
    bool names_source = false;
    for (const auto& [key, value] : sources.flags) names_source |= key == "sim_trace" || key == "sim_fleet";
    for (const auto& [key, value] : sources.env) names_source |= key == "CAPSTAN_TRACE" || key == "CAPSTAN_FLEET";
    if (!names_source) sources.file = demo_config_path();
  }
  auto effective = config::load_config(sources);
  if (!effective.ok()) throw UsageError(effective.error().message);
  const config::DaemonConfig& c = effective.value().config;
  if (c.metrics_source != "sim") throw UsageError("metrics_source: only 'sim' exists yet, got '" + c.metrics_source + "'");
  if (c.sim_fleet.empty() || c.sim_trace.empty())
    throw UsageError("the sim source needs a fleet and a trace: --fleet FILE --trace FILE (or sim_fleet / sim_trace)");
  auto policy = find_policy(c.policy);
  if (!policy.ok()) throw UsageError("--policy: " + policy.error().message);

  auto fleet_config = sim::load_fleet_config(c.sim_fleet);
  if (!fleet_config.ok()) throw UsageError(fleet_config.error().message);
  sim::TraceOptions topts;
  topts.seed = c.seed;
  auto trace = sim::open_trace(c.sim_trace, topts);
  if (!trace.ok()) throw UsageError("--trace: " + trace.error().message);
  std::vector<sim::ModelInput> models;
  models.push_back({fleet_config.value(), std::move(trace).value(), 1});
  fleet::SimulatedFleetOptions sopts;
  sopts.slo = c.slo;
  sopts.seed = c.seed;
  sopts.endless = c.clock != "virtual";
  auto simulated = fleet::SimulatedFleet::create(std::move(models), sopts);
  if (!simulated.ok()) throw UsageError(simulated.error().message);
  std::shared_ptr<fleet::SimulatedFleet> sim_fleet = std::move(simulated).value();
  const std::vector<sim::FleetConfig> fleets = sim_fleet->fleets();

  actors::DaemonSetup setup;
  setup.policy = policy.value();
  setup.config = to_update(effective.value(), fleets);
  setup.reload = [sources, fleets, running = c.policy]() -> Result<actors::ConfigUpdate> {
    auto reloaded = config::load_config(sources);
    if (!reloaded.ok()) return reloaded.error();
    if (reloaded.value().config.policy != running)
      return invalid_argument("policy: changing the policy from '" + running + "' to '" + reloaded.value().config.policy +
                              "' needs a restart; the running configuration stays");
    return to_update(reloaded.value(), fleets);
  };
  setup.config_source = sources.file ? *sources.file : sources.configmap_dir ? *sources.configmap_dir : "flags";
  setup.source = sim_fleet;
  if (c.connector == "sim" || c.connector == "advisory") {
    // Advisory: the same connector, used only for what a person approves (actors/actuator.hpp).
    setup.connector = sim_fleet;
    setup.options.actuator.advisory = c.connector == "advisory";
  } else if (c.connector == "dry-run") {
    setup.connector = std::make_shared<fleet::DryRunConnector>([](const VariantKey& v, int replicas) {
      std::printf("dry-run: scale %s/%s/%s to %d\n", v.model.ns.c_str(), v.model.model_id.c_str(), v.variant.c_str(),
                  replicas);
      std::fflush(stdout);
    });
  } else {
    throw UsageError("connector: must be 'sim', 'dry-run' or 'advisory', got '" + c.connector + "'");
  }
  actors::DaemonOptions& o = setup.options;
  o.data_dir = c.data_dir;
  o.store.sync = c.sync_per_tick;
  o.tick_s = c.tick_s;
  o.virtual_clock = c.clock == "virtual";
  o.speedup = c.speedup;
  o.max_ticks = f.max_ticks;
  o.fleet.snapshot_every_ticks = c.snapshot_every_ticks;
  o.fleet.retention_max_age_s = c.retention_max_age_s;
  o.fleet.retention_max_bytes = c.retention_max_bytes;
  o.fleet.timeouts.model_s = c.model_timeout_s;
  o.fleet.timeouts.actuation_s = c.actuation_timeout_s;
  o.actuator.retries = c.actuation_retries;
  const std::string format = c.log_format;
  const bool verbose = f.verbose;
  setup.on_tick = [format, verbose](const actors::TickSummary& summary) { print_tick(summary, format, verbose); };
  setup.log = [format](const std::string& line) {
    if (format == "json")
      std::cerr << nlohmann::json{{"log", line}}.dump() << "\n";
    else
      std::cerr << "capstan: " << line << "\n";
  };
  setup.log("policy " + c.policy + " on the simulated fleet of " + fleets.front().model + " (" + c.sim_trace +
            "), tick " + std::to_string(static_cast<int>(c.tick_s)) + " s, " +
            (o.virtual_clock ? std::string("virtual clock") : "wall clock x" + format_number(c.speedup)) +
            ", data in " + c.data_dir + "; Ctrl-C stops");

  // The admin API on its own thread (adapters/admin/), reading the status the daemon keeps.
  admin::AdminOptions admin_options;
  admin_options.api_bind = c.admin_bind;
  admin_options.metrics_bind = c.metrics_bind_address;
  admin_options.health_bind = c.health_probe_bind_address;
  if (!c.admin_token_file.empty()) {
    auto token = admin::read_token_file(c.admin_token_file);
    if (!token.ok()) throw UsageError(token.error().message);
    admin_options.token = token.value();
  }
  setup.status = std::make_shared<actors::DaemonStatus>(c.data_dir, config::to_json(effective.value()));
  admin::AdminServer admin_server(setup.status, admin_options);
  auto admin_notes = admin_server.start();
  if (!admin_notes.ok()) throw UsageError(admin_notes.error().message);
  for (const std::string& note : admin_notes.value()) setup.log(note);

  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  status = actors::run_daemon(std::move(setup), g_stop);
}

}  // namespace

void add_run_command(CLI::App& app, int& status) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand("run", "the daemon: learn, decide and actuate every tick, remembering across restarts");
  f->config = add_config_flags(*cmd);
  cmd->add_option("--max-ticks", f->max_ticks, "stop after this many ticks (0: no limit)")->capture_default_str();
  cmd->add_flag("--verbose", f->verbose, "print every decision, holds included");
  cmd->callback([f, &status] { run(*f, status); });
}

}  // namespace capstan::cli
