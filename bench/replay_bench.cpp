// `capstan replay verify` throughput (issue 23): a history the daemon records over a
// fleet of MODELS models x 1 variant (each a copy of a variant the simulator recorded
// under `hybrid`, recorded_source.hpp), until the store holds about EVENTS events; then
// replay::verify over all of it, from the empty fleet: read every event, fold every tick
// through the one tick driver, encode and compare every recomputed tick event with the
// recorded one. Prints the events read per second (wall and CPU) and the tick events
// compared per second. Target: >= 500k events/s on 2 cores.
// Run (from build/bench): ./replay_bench [EVENTS] [MODELS] [POLICY] [DIR]   (default
// 1000000 events, 200 models, hybrid; a cheaper POLICY such as saturation shows what
// replay itself costs beside the policy's tick; with DIR the history is kept there, and a
// DIR that holds one is reused, so `capstan replay verify --data DIR` or a profiler can
// run on it again)
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "actors/daemon.hpp"
#include "recorded_source.hpp"
#include "replay/verify.hpp"
#include "timer.hpp"

using namespace capstan;

int main(int argc, char** argv) {
  const std::uint64_t target_events = argc > 1 ? std::stoull(argv[1]) : 1000000;
  const int models = argc > 2 ? std::stoi(argv[2]) : 200;
  const std::string policy_name = argc > 3 ? argv[3] : "hybrid";
  auto policy = find_policy(policy_name);
  if (!policy.ok()) {
    std::printf("%s\n", policy.error().message.c_str());
    return 1;
  }
  const std::vector<TickInput> recorded = bench::simulated_ticks();
  if (recorded.empty()) return 1;
  const bool keep = argc > 4;
  const std::filesystem::path dir =
      keep ? std::filesystem::path(argv[4])
           : std::filesystem::temp_directory_path() / ("capstan_replay_bench_" + std::to_string(::getpid()));
  const bool reuse = keep && std::filesystem::exists(dir);
  if (!keep) std::filesystem::remove_all(dir);

  // Record: the daemon until the store holds the events asked for.
  actors::DaemonSetup setup;
  setup.policy = policy.value();
  setup.config.policy = policy_name;
  setup.config.fleet.slo = {2000, 100};
  setup.config.applied = {{"bench", true}};
  setup.source = std::make_shared<bench::RecordedSource>(recorded, models, 1);
  setup.connector = std::make_shared<bench::AcceptingConnector>();
  setup.options.data_dir = dir.string();
  setup.options.virtual_clock = true;
  setup.options.store.sync = false;  // the history is what is measured, not how it was written
  setup.options.fleet.timeouts.model_s = 60;
  std::atomic<bool> stop{false};
  std::uint64_t events = 0;
  setup.on_tick = [&](const actors::TickSummary& s) {
    events = s.last_seq;
    if (events >= target_events) stop.store(true);
  };
  const auto record_start = std::chrono::steady_clock::now();
  if (!reuse && actors::run_daemon(std::move(setup), stop) != 0) {
    std::printf("daemon failed\n");
    return 1;
  }
  const double record_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - record_start).count();

  // Verify, as `capstan replay verify --data DIR` does.
  auto store = storage::EventStore::open_read_only(dir.string());
  if (!store.ok()) {
    std::printf("cannot open: %s\n", store.error().message.c_str());
    return 1;
  }
  const std::uint64_t stored = store.value()->last_sequence();
  // Its parts: reading (decoding every event) alone, then the fold without the comparison.
  struct Took {
    double wall_s, cpu_s;
  };
  auto timed = [](auto&& body) {
    const double cpu0 = bench::cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    body();
    return Took{std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), bench::cpu_seconds() - cpu0};
  };
  const Took read = timed([&] { (void)store.value()->for_each({}, [](const storage::Event&) { return true; }); });
  const Took fold = timed([&] {
    actors::FoldStart from;
    (void)actors::fold_recorded(*store.value(), *policy.value(), from, {}, nullptr);
  });
  const double cpu0 = bench::cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  auto report = replay::verify(*store.value(), {});
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_s = bench::cpu_seconds() - cpu0;
  if (!report.ok()) {
    std::printf("verify failed: %s\n", report.error().message.c_str());
    return 1;
  }
  const replay::VerifyReport& r = report.value();
  std::printf("replay verify over a recorded history: %d models x 1 variant (%s), %llu ticks, %llu events "
              "(recorded in %.1f s)\n",
              models, policy_name.c_str(), static_cast<unsigned long long>(r.ticks_folded), static_cast<unsigned long long>(stored), record_s);
  std::printf("  %.2f s wall, %.2f s CPU: %.0f events/s read and folded (wall), %.0f events/s (CPU); "
              "%llu tick events compared (%.0f/s wall), %llu divergences\n",
              wall_s, cpu_s, static_cast<double>(stored) / wall_s, static_cast<double>(stored) / cpu_s,
              static_cast<unsigned long long>(r.events_compared), static_cast<double>(r.events_compared) / wall_s,
              static_cast<unsigned long long>(r.divergences));
  std::printf("  parts, on one thread: decoding every event %.2f s wall, %.2f s CPU (%.0f/s wall); reading and "
              "folding %.2f s wall, %.2f s CPU (%.0f/s wall)\n",
              read.wall_s, read.cpu_s, static_cast<double>(stored) / read.wall_s, fold.wall_s, fold.cpu_s,
              static_cast<double>(stored) / fold.wall_s);
  std::printf("  run: cd build/bench && ./replay_bench %llu %d %s\n", static_cast<unsigned long long>(target_events),
              models, policy_name.c_str());
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}
