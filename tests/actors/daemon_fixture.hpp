// Shared pieces of the actor tests: a daemon run in-process over the shipped example
// fleet and trace excerpt, in virtual time, on a fresh data directory.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "actors/daemon.hpp"
#include "adapters/fleet/simulated_fleet.hpp"
#include "domain/policies/policy.hpp"
#include "sim/fleet_config.hpp"
#include "sim/policy_settings.hpp"
#include "sim/trace_open.hpp"

namespace capstan::testing {

inline std::string example(const std::string& name) { return std::string(CAPSTAN_SOURCE_DIR) + "/ops/examples/" + name; }

// A directory removed when the test ends.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("capstan_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

inline sim::FleetConfig example_fleet() {
  auto fleet = sim::load_fleet_config(example("fleet.yaml"));
  if (!fleet.ok()) throw std::runtime_error(fleet.error().message);
  return fleet.value();
}

inline std::unique_ptr<sim::TraceSource> example_trace(std::uint64_t seed = 1) {
  sim::TraceOptions o;
  o.seed = seed;
  auto trace = sim::open_trace(example("azure_code_15min.csv"), o);
  if (!trace.ok()) throw std::runtime_error(trace.error().message);
  return std::move(trace).value();
}

// The configuration `simulate` runs the example fleet under.
inline PolicyConfig example_policy_config(const sim::FleetConfig& fleet) {
  return policy_config(sim::with_fleet_settings(PolicySettings{}, {&fleet, 1}));
}

inline actors::ConfigUpdate update_for(const std::string& policy, const PolicyConfig& config) {
  actors::ConfigUpdate update;
  update.policy = policy;
  update.fleet = config;
  update.applied = {{"policy", policy}};
  return update;
}

struct DaemonRun {
  int status = -1;
  std::vector<actors::TickSummary> ticks;
};

// Runs the daemon until the source ends or `max_ticks`, on `models` (or the example).
inline DaemonRun run_example_daemon(const std::string& policy_name, const std::string& data_dir,
                                    actors::DaemonOptions options, std::vector<sim::ModelInput> models = {},
                                    std::shared_ptr<fleet::Connector> connector = nullptr,
                                    std::shared_ptr<const TickPolicy> policy = nullptr) {
  if (models.empty()) models.push_back({example_fleet(), example_trace(), 1});
  const PolicyConfig config = example_policy_config(models.front().fleet);
  fleet::SimulatedFleetOptions sopts;
  sopts.slo = config.slo;
  auto simulated = fleet::SimulatedFleet::create(std::move(models), sopts);
  if (!simulated.ok()) throw std::runtime_error(simulated.error().message);
  std::shared_ptr<fleet::SimulatedFleet> sim_fleet = std::move(simulated).value();
  actors::DaemonSetup setup;
  setup.policy = policy ? policy : find_policy(policy_name).value();
  setup.config = update_for(policy_name, config);
  setup.source = sim_fleet;
  setup.connector = connector ? connector : sim_fleet;
  options.data_dir = data_dir;
  options.virtual_clock = true;
  setup.options = options;
  DaemonRun run;
  setup.on_tick = [&run](const actors::TickSummary& s) { run.ticks.push_back(s); };
  std::atomic<bool> stop{false};
  run.status = actors::run_daemon(std::move(setup), stop);
  return run;
}

}  // namespace capstan::testing
