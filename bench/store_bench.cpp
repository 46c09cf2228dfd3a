// The event store (storage/event_store.hpp; issue 21 targets: a 10,000-variant tick,
// everything included, under 300 ms; restart under 1 s at 1,000 models and 1 M events).
//
// A tick of V variants (4 per model) is 4.25 V events: per model the observation (what
// the daemon records of its tick input: per variant 3 pods, each with a 16-bucket ITL
// histogram, and 2 forward passes; most of a tick's bytes), per variant params_learned,
// capacity, a decision shaped as hybrid's (18 figures and the optimiser's reason as its
// cause) and an actuation; 2,500 models of 4 variants make the 10,000-variant tick of
// 42,500 events.
// Figures:
//   - encoding alone, direct MessagePack writer vs the JSON tree (per event, and per
//     observation);
//   - append of one 40,000-event tick as one WriteBatch, synced and unsynced
//     (events/s, MB/s of encoded values, ms per tick);
//   - a scan of about 1 M events with every payload decoded, and the same scan filtered by
//     one model (envelope only, 1 in 1,000 events decoded);
//   - opening a store of 1 M events and reading the newest snapshots of 1,000 models
//     (a snapshot per model every 100,000 events, 4 KiB each).
// Run: build/bench/store_bench [DIR]   (default: a directory under /tmp, removed after)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/event_store.hpp"
#include "timer.hpp"

using namespace capstan;
using namespace capstan::storage;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU time of the calling thread: what an append costs the daemon, whatever else the
// shared machine is running (RocksDB's flushes run on threads of their own).
double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

ModelKey model_of(std::size_t m) { return {"prod", "org/model-" + std::to_string(m)}; }

Decision hybrid_decision(const ModelKey& model, const std::string& variant, double x) {
  const Reason optimiser = make_reason(ReasonCode::kScaleUp, "optimizer.cost_aware", {{"target", 4}, {"cost", 12.5 + x}});
  std::vector<Figure> figures{{"demand_rps", 41.3 + x},  {"forecast_rps", 44.1 + x}, {"horizon_s", 90.0},
                              {"observed_rps", 40.2 + x}, {"backlog", 3.0},          {"backlog_ahead", 1.7 + x},
                              {"peak_rps", 52.9 + x},     {"keep_s", 600.0},          {"supply_rps", 38.4 + x},
                              {"queued", 2.0},            {"capacity_rps", 11.2 + x}, {"bound", "ttft-tail"},
                              {"ttft_target_ms", 2000.0}, {"itl_target_ms", 50.0},    {"tail_probability", 0.95},
                              {"itl_sized_ms", 38.2 + x}, {"predicted_ttft_ms", 812.4 + x},
                              {"observed_wait_ms", 35.7 + x}};
  return {model, variant, 3, 4, make_reason(ReasonCode::kScaleUp, "hybrid.sized", std::move(figures), {optimiser})};
}

// What the daemon records of one model's tick: 4 variants of 3 pods, as a scraped vLLM
// fleet reports them.
ModelTickInput observation(const ModelKey& model, double x) {
  ModelTickInput m;
  m.model = model;
  m.arrival_rate_rps = 41.3 + x;
  for (int v = 0; v < 4; ++v) {
    VariantTickInput variant;
    variant.state.spec.name = "variant-" + std::to_string(v);
    variant.state.spec.kv_capacity_tokens = 1.5e6;
    variant.state.spec.max_num_batched_tokens = 8192;
    variant.state.current_replicas = 3;
    variant.state.desired_replicas = 3;
    for (int p = 0; p < 3; ++p) {
      PodMetrics pod;
      pod.pod = variant.state.spec.name + "-pod-" + std::to_string(p);
      pod.arrival_rate_rps = 13.7 + x;
      pod.avg_ttft_ms = 412.3 + x;
      pod.avg_itl_ms = 38.1 + x;
      pod.avg_input_tokens = 1811.4 + x;
      pod.avg_output_tokens = 231.9 + x;
      pod.kv_usage = 0.43 + x * 1e-3;
      pod.queue_length = 2;
      pod.running = 37;
      pod.seconds_since_start = 3600.5 + x;
      for (int b = 0; b < 16; ++b) {
        pod.request_itl.upper_bounds_ms.push_back(10.0 * (b + 1));
        pod.request_itl.cumulative.push_back(std::min(400.0, 30.0 * b + x));
      }
      pod.request_itl.count = 400;
      pod.request_itl.sum_ms = 15240.5 + x;
      variant.state.pods.push_back(std::move(pod));
    }
    for (int f = 0; f < 2; ++f) {
      variant.forward_passes.push_back({24.5 + x, 512, 30211 + x, 2, 37, variant.state.spec.name + "-pod-0", 1, 0, 0});
    }
    variant.configured_cold_start_s = 60;
    m.variants.push_back(std::move(variant));
  }
  return m;
}

// One tick of `variants` variants (4 per model) at time t: an observation per model and
// 4 events per variant.
std::vector<Event> tick_events(std::size_t variants, double t) {
  std::vector<Event> events;
  events.reserve(4 * variants + variants / 4 + 1);
  for (std::size_t v = 0; v < variants; ++v) {
    const ModelKey model = model_of(v / 4);
    const std::string name = "variant-" + std::to_string(v % 4);
    const double x = static_cast<double>(v) * 1e-3 + t * 1e-7;
    if (v % 4 == 0) events.push_back({0, t, ObservationRecorded{observation(model, x)}});
    ParamsLearned params;
    params.variant = {model, name};
    params.params = {6.73 + x, 0.0412 + x, 0.00051 + x};
    for (std::size_t i = 0; i < 9; ++i) params.covariance[i] = 1e-3 * (static_cast<double>(i) + x);
    params.nis = 1.7 + x;
    params.accepted = true;
    params.source = "ekf";
    params.accepted_updates = 1200;
    events.push_back({0, t, TickEvent{params}});
    events.push_back({0, t, TickEvent{CapacitySized{model, name, {2000, 50}, "explicit", 12.4 + x, 11.2 + x, "ttft-tail",
                                                    41.3 + x, 4}}});
    events.push_back({0, t, TickEvent{DecisionMade{hybrid_decision(model, name, x)}}});
    events.push_back({0, t, ActuationRecorded{{model, name}, "requested", 4, 3, "", 1}});
  }
  return events;
}

std::size_t encoded_bytes(const std::vector<Event>& events) {
  std::size_t n = 0;
  for (const Event& e : events) n += encode_event_value(e).size();
  return n;
}

std::unique_ptr<EventStore> open_or_die(const std::string& dir, bool sync) {
  auto store = EventStore::open(dir, {sync, "bench", 0});
  if (!store) {
    std::fprintf(stderr, "store_bench: %s\n", store.error().message.c_str());
    std::exit(1);
  }
  return std::move(store).value();
}

void bench_encoding(const std::vector<Event>& tick) {
  std::vector<Event> observations;
  for (const Event& e : tick) {
    if (std::holds_alternative<ObservationRecorded>(e.payload) && observations.size() < 100) observations.push_back(e);
  }
  std::size_t k = 0;
  const double observation_ns =
      bench::median_ns_per_call([&](int) { bench::keep(encode_event_value(observations[k++ % observations.size()])); }, 400);
  k = 0;
  const double observation_tree_ns = bench::median_ns_per_call(
      [&](int) { bench::keep(nlohmann::json::to_msgpack(encode_event_document(observations[k++ % observations.size()]))); }, 400);
  const std::string value = encode_event_value(observations.front());
  k = 0;
  const double observation_read_ns = bench::median_ns_per_call([&](int) { bench::keep(decode_event_value(++k, value)); }, 400);
  std::printf("one observation (4 variants x 3 pods with ITL histograms, %zu bytes), median:\n", value.size());
  std::printf("  encode: as stored %8.0f ns   JSON tree + to_msgpack %8.0f ns   (x%.1f); decode as stored %8.0f ns\n",
              observation_ns, observation_tree_ns, observation_tree_ns / observation_ns, observation_read_ns);
  std::size_t i = 0;
  const double direct_ns = bench::median_ns_per_call([&](int) { bench::keep(encode_event_value(tick[i++ % tick.size()])); }, 4000);
  i = 0;
  const double tree_ns = bench::median_ns_per_call(
      [&](int) { bench::keep(nlohmann::json::to_msgpack(encode_event_document(tick[i++ % tick.size()]))); }, 4000);
  std::printf("encode one event (mix of a tick: params, capacity, hybrid decision, actuation), median:\n");
  std::printf("  direct MessagePack writer %8.0f ns   JSON tree + to_msgpack %8.0f ns   (x%.1f)\n", direct_ns, tree_ns,
              tree_ns / direct_ns);
  std::printf("  => encoding a 40,000-event tick: %.1f ms direct, %.1f ms through the tree\n", direct_ns * 4e4 / 1e6,
              tree_ns * 4e4 / 1e6);
}

void bench_append(const std::string& dir, bool sync, std::size_t variants, int ticks) {
  auto store = open_or_die(dir, sync);
  std::vector<double> ms, cpu_ms;
  std::size_t bytes = 0, events = 0;
  for (int k = 0; k < ticks; ++k) {
    std::vector<Event> tick = tick_events(variants, 30.0 * k);
    bytes += encoded_bytes(tick);
    events += tick.size();
    const auto t0 = Clock::now();
    const double cpu0 = thread_cpu_s();
    auto appended = store->append(std::move(tick));
    cpu_ms.push_back((thread_cpu_s() - cpu0) * 1e3);
    ms.push_back(seconds_since(t0) * 1e3);
    if (!appended) {
      std::fprintf(stderr, "store_bench: %s\n", appended.error().message.c_str());
      std::exit(1);
    }
  }
  double total_ms = 0;
  for (double m : ms) total_ms += m;
  std::printf("append %zu ticks of %zu events (%zu variants) as one WriteBatch each, %s:\n", ms.size(), events / ms.size(),
              variants, sync ? "synced per tick" : "unsynced");
  std::printf("  per tick (encode + write), wall: median %.1f ms, max %.1f ms (first tick %.1f ms); appending thread's "
              "CPU: median %.1f ms\n",
              median(ms), *std::max_element(ms.begin(), ms.end()), ms.front(), median(cpu_ms));
  std::printf("  %.0f events/s, %.1f MB/s of encoded values (%.0f bytes/event)\n",
              static_cast<double>(events) / (total_ms / 1e3),
              static_cast<double>(bytes) / 1e6 / (total_ms / 1e3), static_cast<double>(bytes) / static_cast<double>(events));
}

// About 1 M events: 25 ticks of 42,500, each with a snapshot of every one of 1,000 models
// written at ticks 0, 10 and 20 (the newest is at tick 20).
void build_large_store(const std::string& dir) {
  auto store = open_or_die(dir, false);
  const std::string state(4096, 's');
  for (int k = 0; k < 25; ++k) {
    std::vector<Snapshot> snapshots;
    if (k % 10 == 0) {
      for (std::size_t m = 0; m < 1000; ++m) snapshots.push_back({snapshot_scope(model_of(m)), 0, 30.0 * k, state});
    }
    auto appended = store->append(tick_events(10'000, 30.0 * k), std::move(snapshots));
    if (!appended) {
      std::fprintf(stderr, "store_bench: %s\n", appended.error().message.c_str());
      std::exit(1);
    }
  }
}

void bench_large_store(const std::string& dir) {
  const auto build0 = Clock::now();
  build_large_store(dir);
  const double build_s = seconds_since(build0);
  const auto open0 = Clock::now();
  auto store = open_or_die(dir, true);
  const double open_s = seconds_since(open0);
  std::printf("built a store of %llu events and 3 x 1,000 snapshots in %.1f s (unsynced)\n",
              static_cast<unsigned long long>(store->last_sequence()), build_s);
  const auto snap0 = Clock::now();
  auto snapshots = store->latest_snapshots();
  const double snap_s = seconds_since(snap0);
  std::printf("open the store: %.0f ms; read the newest snapshots of %zu models (4 KiB each): %.0f ms; "
              "together %.0f ms\n",
              open_s * 1e3, snapshots ? snapshots->size() : 0, snap_s * 1e3, (open_s + snap_s) * 1e3);

  std::size_t seen = 0;
  const auto scan0 = Clock::now();
  auto ran = store->for_each({}, [&](const Event&) {
    ++seen;
    return true;
  });
  const double scan_s = seconds_since(scan0);
  std::printf("scan all %zu events, every payload decoded: %.2f s (%.0f events/s)%s\n", seen, scan_s,
              static_cast<double>(seen) / scan_s, ran ? "" : " FAILED");

  seen = 0;
  const auto model0 = Clock::now();
  ran = store->for_each({.model = model_of(7)}, [&](const Event&) {
    ++seen;
    return true;
  });
  const double model_s = seconds_since(model0);
  std::printf("scan every event for one model (envelope only, %zu decoded): %.2f s%s\n", seen, model_s, ran ? "" : " FAILED");

  seen = 0;
  const auto tail0 = Clock::now();
  ran = store->for_each({.from_time_s = 30.0 * 24}, [&](const Event&) {
    ++seen;
    return true;
  });
  std::printf("read the last tick by time (bisection, then %zu events decoded): %.0f ms%s\n", seen,
              seconds_since(tail0) * 1e3, ran ? "" : " FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : (std::filesystem::temp_directory_path() / ("capstan-store-bench-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(root);
  std::string load;
  std::getline(std::ifstream("/proc/loadavg"), load);
  std::printf("store_bench in %s; load average %s on %u cores\n", root.c_str(), load.c_str(), std::thread::hardware_concurrency());
  bench_encoding(tick_events(10'000, 0));
  bench_append(root + "/synced", true, 10'000, 10);
  bench_append(root + "/unsynced", false, 10'000, 10);
  bench_append(root + "/small", true, 1'000, 20);
  bench_large_store(root + "/large");
  std::filesystem::remove_all(root);
  return 0;
}
