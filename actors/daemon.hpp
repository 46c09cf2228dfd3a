// The daemon: opens the event store, resumes from it (resume.hpp), spawns the fleet,
// collector, journal, actuator and config watcher, and drives the ticks until the
// source has nothing more, `max_ticks` have run, or a stop is requested (SIGTERM,
// Ctrl-C): the tick in flight finishes and is made durable before it returns.
//
// Time: tick k is at k * tick_s. With the virtual clock ticks follow each other as fast
// as they complete (`run --clock virtual` over a trace: the same decisions as
// `simulate`); with the wall clock tick k starts tick_s / speedup wall seconds after
// tick k-1 (a speed-up > 1 only makes sense on the simulated fleet, whose time is
// virtual too). A restart continues at the tick after the last one recorded.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "actors/actuator.hpp"
#include "actors/config_watcher.hpp"
#include "actors/daemon_status.hpp"
#include "actors/fleet_actor.hpp"
#include "adapters/fleet/connector.hpp"
#include "adapters/fleet/metrics_source.hpp"
#include "storage/event_store.hpp"

namespace capstan::actors {

struct DaemonOptions {
  std::string data_dir = "./capstan-data";
  storage::StoreOptions store;
  FleetOptions fleet;
  ActuatorOptions actuator;
  double tick_s = 30;
  bool virtual_clock = false;
  double speedup = 1;
  std::uint64_t max_ticks = 0;  // 0 = no limit
  std::size_t scheduler_threads = 0;  // 0 = CAF's default (the hardware's)
};

struct DaemonSetup {
  std::shared_ptr<const TickPolicy> policy;
  ConfigUpdate config;       // in force at the start
  ConfigLoader reload;       // re-reads the configuration before each tick; empty = never
  std::string config_source; // what reload reads, for messages
  std::shared_ptr<fleet::MetricsSource> source;
  std::shared_ptr<fleet::Connector> connector;
  DaemonOptions options;
  std::function<void(const TickSummary&)> on_tick;    // after each tick is durable and actuated
  std::function<void(const std::string&)> log;        // startup, resume and shutdown notes
  std::shared_ptr<DaemonStatus> status;               // updated after each tick for the admin API; may be null
};

// 0 when it stopped as asked or the source ended; 1 after an error (printed through log).
int run_daemon(DaemonSetup setup, const std::atomic<bool>& stop);

}  // namespace capstan::actors
