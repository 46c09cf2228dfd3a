#include "actors/daemon.hpp"

#include <chrono>
#include <cmath>
#include <thread>

#include "actors/collector.hpp"
#include "actors/journal.hpp"
#include "actors/resume.hpp"

namespace capstan::actors {

namespace {

void say(const DaemonSetup& setup, const std::string& line) {
  if (setup.log) setup.log(line);
}

// Sleeps until `deadline` in short steps, so that a stop request is seen within 100 ms.
void wait_until(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stop) {
  while (!stop.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        deadline - std::chrono::steady_clock::now(), std::chrono::milliseconds(100)));
}

// Advisory: the reviews a person made since the last tick are recorded, and approved
// decisions applied, before the daemon exits, as the next tick would have done: a stop
// does not lose a person's word. Bounded by 3 s, so that SIGTERM still exits within 5 s.
void record_last_reviews(caf::scoped_actor& self, const actuator_actor& actuator, const journal_actor& journal,
                         double now_s, const DaemonSetup& setup) {
  const auto limit = caf::duration{std::chrono::seconds(3)};
  const auto failed = [&](caf::error& err) {
    say(setup, "the reviews since the last tick could not be recorded: " + self->system().render(err));
  };
  self->request(actuator, limit, actuate_atom::value, ActuationRequest{{}, {}, now_s})
      .receive(
          [&](ActuationReport& report) {
            if (report.results.empty()) return;
            JournalBatch batch;
            for (storage::ActuationRecorded& a : report.results) batch.events.push_back({0, now_s, std::move(a)});
            self->request(journal, limit, append_atom::value, std::move(batch)).receive([](JournalAck&) {}, failed);
          },
          failed);
}

}  // namespace

int run_daemon(DaemonSetup setup, const std::atomic<bool>& stop) {
  const DaemonOptions& o = setup.options;
  auto opened = storage::EventStore::open(o.data_dir, o.store);
  if (!opened.ok()) {
    say(setup, "cannot open the event store: " + opened.error().message);
    return 1;
  }
  std::shared_ptr<storage::EventStore> store = std::move(opened).value();
  if (setup.status) setup.status->store_opened(store->last_sequence());
  const auto resume_start = std::chrono::steady_clock::now();
  auto resumed = resume(*store, *setup.policy);
  if (!resumed.ok()) {
    say(setup, "cannot resume from " + o.data_dir + ": " + resumed.error().message);
    return 1;
  }
  Resumed& r = resumed.value();
  if (store->last_sequence() > 0) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - resume_start).count();
    char line[256];
    std::snprintf(line, sizeof line,
                  "resumed from %s: %llu events, snapshot at seq %llu, %llu ticks folded in %.0f ms, next tick %llu",
                  o.data_dir.c_str(), static_cast<unsigned long long>(store->last_sequence()),
                  static_cast<unsigned long long>(r.snapshot_seq), static_cast<unsigned long long>(r.folded_ticks), ms,
                  static_cast<unsigned long long>(r.start.last_tick + 1));
    say(setup, line);
    if (r.mismatched_decisions > 0)
      say(setup, "warning: " + std::to_string(r.mismatched_decisions) +
                     " recorded ticks decided differently when folded (see `capstan replay verify`)");
  }

  // Advisory: the decisions that awaited approval when the daemon stopped await it again.
  ApprovalQueue approvals;
  if (o.actuator.advisory) {
    auto restored = ApprovalQueue::restore(*store);
    if (!restored.ok()) {
      say(setup, "cannot restore the decisions awaiting approval: " + restored.error().message);
      return 1;
    }
    approvals = std::move(restored).value();
    if (!approvals.pending().empty())
      say(setup, std::to_string(approvals.pending().size()) + " decisions await approval (advisory mode)");
  }

  caf::actor_system_config cfg;
  if (o.scheduler_threads > 0) cfg.set("scheduler.max-threads", o.scheduler_threads);
  cfg.set("scheduler.policy", caf::atom("sharing"));
  caf::actor_system system{cfg};
  auto collector = system.spawn<caf::detached>(collector_behavior, setup.source, setup.policy);
  auto journal = system.spawn<caf::detached>(journal_behavior, store);
  auto actuator = system.spawn<caf::detached>(actuator_behavior, setup.connector, o.actuator, journal, std::move(approvals));
  if (setup.status) setup.status->attach_actuator(system, actuator);
  FleetOptions fleet_options = o.fleet;
  fleet_options.summary_events = o.fleet.summary_events || setup.status != nullptr;
  auto fleet =
      system.spawn(fleet_behavior, setup.policy, setup.config, r.start, fleet_options, collector, journal, actuator);
  config_watcher_actor watcher;
  if (setup.reload)
    watcher = system.spawn<caf::detached>(config_watcher_behavior, setup.reload, fleet, setup.config_source,
                                          setup.config.applied);

  int status = 0;
  caf::scoped_actor self{system};
  // Tick k at k * tick_s: a restart continues after the last recorded tick.
  std::uint64_t k = static_cast<std::uint64_t>(std::llround(r.last_now_s / o.tick_s)) + 1;
  auto next_wall = std::chrono::steady_clock::now();
  double last_now_s = r.last_now_s;  // the last tick's time, this run's or the store's
  for (std::uint64_t run = 0; !stop.load() && (o.max_ticks == 0 || run < o.max_ticks); ++run, ++k) {
    if (!o.virtual_clock) {
      wait_until(next_wall, stop);
      if (stop.load()) break;
      next_wall += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(o.tick_s / o.speedup));
    }
    if (watcher) self->request(watcher, caf::infinite, check_atom::value).receive([](bool) {}, [](caf::error&) {});
    bool more = true;
    self->request(fleet, caf::infinite, tick_atom::value, TickTime{static_cast<double>(k) * o.tick_s, o.tick_s})
        .receive(
            [&](TickSummary& summary) {
              more = summary.more && !summary.last;
              last_now_s = summary.now_s;
              if (summary.more && setup.on_tick) setup.on_tick(summary);
              if (summary.more && setup.status) setup.status->record_tick(summary, summary.events);
            },
            [&](caf::error& err) {
              say(setup, "tick failed, stopping: " + system.render(err));
              status = 1;
              more = false;
            });
    if (!more) break;
  }
  if (setup.status) setup.status->detach_actuator();
  if (o.actuator.advisory) record_last_reviews(self, actuator, journal, last_now_s, setup);
  self->send_exit(fleet, caf::exit_reason::user_shutdown);
  self->send_exit(collector, caf::exit_reason::user_shutdown);
  self->send_exit(journal, caf::exit_reason::user_shutdown);
  self->send_exit(actuator, caf::exit_reason::user_shutdown);
  if (watcher) self->send_exit(watcher, caf::exit_reason::user_shutdown);
  say(setup, "stopped after tick " + std::to_string(k - 1) + "; " + std::to_string(store->last_sequence()) +
                 " events in " + o.data_dir);
  return status;
}

}  // namespace capstan::actors
