// The daemon's tick, everything included (issue 21): observe (a source replaying
// recorded pods), the messages to every model and variant actor, learn, plan, allocate,
// settle, one durable RocksDB batch (synced), and actuation through a connector that
// accepts. Fleets: 1,000 models x 3 variants and 10,000 models x 1 variant, each variant
// a copy of one the simulator recorded (recorded_fleet.hpp) under `hybrid`. Then the
// restart: opening the store and folding from the newest snapshot; and the peak RSS.
// Targets on 2 cores: a 10,000-variant tick under 300 ms, restart under 1 s at 1,000
// models, RSS under 64 MiB at 1,000 variants.
// Run: build/bench/daemon_bench [TICKS] [MODELSxVARIANTS] [SNAPSHOT_EVERY]
//   (default 40 ticks: a snapshot at 20 and 40; the three fleets, or the one given, e.g.
//   1000x10; SNAPSHOT_EVERY ticks, default the daemon's 20: 1 shows what snapshots cost)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "actors/daemon.hpp"
#include "actors/resume.hpp"
#include "recorded_source.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

void bench_fleet(const std::vector<TickInput>& recorded, int models, int variants, std::uint64_t ticks,
                 int snapshot_every) {
  const auto dir = std::filesystem::temp_directory_path() / ("capstan_daemon_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  bench::reset_peak_rss();
  const long baseline_kib = bench::rss_kib();  // the bench's own recorded inputs, not the daemon's
  actors::DaemonSetup setup;
  setup.policy = hybrid_policy();
  setup.config.policy = "hybrid";
  setup.config.fleet.slo = {2000, 100};
  setup.config.applied = {{"bench", true}};
  setup.source = std::make_shared<bench::RecordedSource>(recorded, models, variants);
  setup.connector = std::make_shared<bench::AcceptingConnector>();
  setup.options.data_dir = dir.string();
  setup.options.virtual_clock = true;
  setup.options.max_ticks = ticks;
  setup.options.fleet.timeouts.model_s = 60;
  setup.options.fleet.snapshot_every_ticks = snapshot_every;
  std::vector<std::chrono::steady_clock::time_point> done;
  std::vector<double> cpu_at_done;  // the process's CPU seconds, all threads
  std::uint64_t events = 0;
  struct Phases {
    double observed_ms, planned_ms, durable_ms, done_ms;
  };
  std::vector<Phases> phases;
  setup.on_tick = [&](const actors::TickSummary& s) {
    done.push_back(std::chrono::steady_clock::now());
    cpu_at_done.push_back(bench::cpu_seconds());
    events = s.last_seq;
    phases.push_back({s.observed_ms, s.planned_ms, s.durable_ms, s.done_ms});
  };
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  if (actors::run_daemon(std::move(setup), stop) != 0) {
    std::printf("daemon failed\n");
    return;
  }
  std::vector<double> ms;
  std::string snapshot_ticks;  // the ticks that also wrote every model's snapshot
  for (std::size_t i = 20; i < done.size(); ++i) {  // after hybrid's ITL evidence has filled
    ms.push_back(std::chrono::duration<double, std::milli>(done[i] - done[i - 1]).count());
    if ((i + 1) % static_cast<std::size_t>(snapshot_every) == 0)
      snapshot_ticks += " " + std::to_string(i + 1) + ": " + std::to_string(static_cast<int>(ms.back())) + " ms (CPU " +
                        std::to_string(static_cast<int>(1e3 * (cpu_at_done[i] - cpu_at_done[i - 1]))) + " ms; planned at " +
                        std::to_string(static_cast<int>(phases[i].planned_ms)) + ", durable at " +
                        std::to_string(static_cast<int>(phases[i].durable_ms)) + ")";
  }
  std::sort(ms.begin(), ms.end());
  std::vector<double> cpu_ms;
  for (std::size_t i = 20; i < cpu_at_done.size(); ++i) cpu_ms.push_back(1e3 * (cpu_at_done[i] - cpu_at_done[i - 1]));
  std::sort(cpu_ms.begin(), cpu_ms.end());
  const long rss = bench::peak_rss_kib();
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const auto open_start = std::chrono::steady_clock::now();
  auto store = storage::EventStore::open_read_only(dir.string());
  auto resumed = store.ok() ? actors::resume(*store.value(), *hybrid_policy()) : Result<actors::Resumed>(store.error());
  const double restart_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - open_start).count();
  if (ms.empty() || !resumed.ok()) {
    std::printf("%6d x %d: too few ticks or no resume (%s)\n", models, variants,
                resumed.ok() ? "" : resumed.error().message.c_str());
    return;
  }
  std::printf(
      "%6d models x %d variants  tick %7.1f ms median  %7.1f ms worst (%zu ticks; CPU %.1f ms median)   %8llu events (%.0f/s)   "
      "restart %6.0f ms (folded %llu ticks)   peak RSS %5.0f MiB (%.0f MiB above the bench's %.0f MiB of recorded inputs)\n",
      models, variants, ms[ms.size() / 2], ms.back(), ms.size(), cpu_ms[cpu_ms.size() / 2], static_cast<unsigned long long>(events),
      static_cast<double>(events) / total_s, restart_ms,
      static_cast<unsigned long long>(resumed.value().folded_ticks), static_cast<double>(rss) / 1024.0,
      static_cast<double>(rss - baseline_kib) / 1024.0, static_cast<double>(baseline_kib) / 1024.0);
  // Where a tick's time goes, median over the timed ticks, ms from the tick's start.
  std::vector<double> observed, planned, durable, finished;
  for (std::size_t i = 20; i < phases.size(); ++i) {
    observed.push_back(phases[i].observed_ms);
    planned.push_back(phases[i].planned_ms);
    durable.push_back(phases[i].durable_ms);
    finished.push_back(phases[i].done_ms);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  std::printf("%29s  observed at %.1f ms, planned at %.1f ms, durable at %.1f ms, done at %.1f ms (medians)\n", "",
              median(observed), median(planned), median(durable), median(finished));
  if (!snapshot_ticks.empty()) std::printf("%29s  snapshot ticks:%s\n", "", snapshot_ticks.c_str());
  // A tick's stored bytes by event type: the values of tick 21 (the first timed one).
  if (store.ok()) {
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_type;  // type -> events, bytes
    std::uint64_t ticks_seen = 0, total = 0;
    (void)store.value()->for_each_value({}, [&](std::uint64_t seq, std::string_view value) {
      auto header = storage::decode_event_header(seq, value);
      if (!header.ok()) return false;
      if (header.value().type == "tick" && ++ticks_seen > 21) return false;
      if (ticks_seen == 21) {
        auto& [n, bytes] = by_type[header.value().type];
        ++n;
        bytes += value.size();
        total += value.size();
      }
      return true;
    });
    std::printf("%29s  tick 21's values: %.2f MB;", "", static_cast<double>(total) / 1e6);
    for (const auto& [type, count] : by_type) {
      std::printf(" %s %.3f MB (%llu x %.0f B)", type.c_str(), static_cast<double>(count.second) / 1e6,
                  static_cast<unsigned long long>(count.first),
                  static_cast<double>(count.second) / static_cast<double>(count.first));
    }
    std::printf("\n");
    if (auto snapshots = store.value()->latest_snapshots(); snapshots.ok()) {
      std::size_t snapshot_bytes = 0;
      for (const storage::Snapshot& snapshot : snapshots.value()) snapshot_bytes += snapshot.bytes.size();
      std::printf("%29s  the newest snapshots: %.2f MB (%zu)\n", "", static_cast<double>(snapshot_bytes) / 1e6,
                  snapshots.value().size());
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t ticks = argc > 1 ? std::stoull(argv[1]) : 40;
  const int snapshot_every = argc > 3 ? std::atoi(argv[3]) : actors::FleetOptions{}.snapshot_every_ticks;
  if (snapshot_every < 1) {
    std::printf("SNAPSHOT_EVERY must be a positive count of ticks, got '%s'\n", argv[3]);
    return 1;
  }
  const std::vector<TickInput> recorded = bench::simulated_ticks();
  if (recorded.empty()) return 1;
  std::printf("capstan run's tick, everything included (hybrid, synced batch per tick, snapshot every %d ticks)\n",
              snapshot_every);
  if (argc > 2) {  // one fleet, any shape
    int models = 0, variants = 0;
    if (std::sscanf(argv[2], "%dx%d", &models, &variants) != 2 || models < 1 || variants < 1) {
      std::printf("MODELSxVARIANTS must be two positive counts, e.g. 1000x10, got '%s'\n", argv[2]);
      return 1;
    }
    bench_fleet(recorded, models, variants, ticks, snapshot_every);
    return 0;
  }
  for (auto [models, variants] : {std::pair{1000, 1}, std::pair{1000, 3}, std::pair{10000, 1}})
    bench_fleet(recorded, models, variants, ticks, snapshot_every);
  return 0;
}
