// The admin API under load while the daemon ticks (issue 23, part 2): GET /api/v1/models
// paced at a fixed rate (default 1,000 req/s) on one keep-alive Beast connection, while
// run_daemon ticks 1,000 models x 1 variant (recorded_fleet.hpp, hybrid; by default on
// the virtual clock, ticks back to back: both cores busy all the time, the worst case for
// contention; with TICK_PERIOD_S > 0 on the wall clock, a 30 s tick every TICK_PERIOD_S
// wall seconds, as a running daemon ticks but faster). Prints the latency percentiles,
// the ticks' median wall time with the admin API and without it (the status the driver
// loop keeps costs a read of the tick's events), and how many requests fell behind the
// pace.
// Run: build/bench/admin_bench [SECONDS] [REQUESTS_PER_SECOND] [TARGET] [TICK_PERIOD_S]
//      (default 10 s, 1000/s, /api/v1/models, 0 = back to back; e.g.
//      "/api/v1/models?limit=100" for a page, 1 for a tick every wall second)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "actors/daemon.hpp"
#include "adapters/admin/admin_server.hpp"
#include "recorded_source.hpp"

using namespace capstan;
namespace bhttp = boost::beast::http;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kModels = 1000;

actors::DaemonSetup daemon_setup(const std::vector<TickInput>& recorded, const std::filesystem::path& dir,
                                 std::vector<double>& done_ms, double tick_period_s) {
  actors::DaemonSetup setup;
  setup.policy = hybrid_policy();
  setup.config.policy = "hybrid";
  setup.config.fleet.slo = {2000, 100};
  setup.config.applied = {{"bench", true}};
  setup.source = std::make_shared<bench::RecordedSource>(recorded, kModels, 1);
  setup.connector = std::make_shared<bench::AcceptingConnector>();
  setup.options.data_dir = dir.string();
  setup.options.virtual_clock = tick_period_s <= 0;
  if (tick_period_s > 0) setup.options.speedup = setup.options.tick_s / tick_period_s;
  setup.options.fleet.timeouts.model_s = 60;
  setup.on_tick = [&done_ms](const actors::TickSummary& t) { done_ms.push_back(t.done_ms); };
  return setup;
}

// The ticks' own wall time, start to done (TickSummary::done_ms), after the first `skip`.
double median_tick_ms(const std::vector<double>& done_ms, std::size_t skip) {
  std::vector<double> ms(done_ms.begin() + static_cast<std::ptrdiff_t>(std::min(skip, done_ms.size())), done_ms.end());
  std::sort(ms.begin(), ms.end());
  return ms.empty() ? 0 : ms[ms.size() / 2];
}

double percentile(const std::vector<double>& sorted, double p) {
  return sorted.empty() ? 0 : sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p * sorted.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::stod(argv[1]) : 10;
  const double rate = argc > 2 ? std::stod(argv[2]) : 1000;
  const std::string target = argc > 3 ? argv[3] : "/api/v1/models";
  const double tick_period_s = argc > 4 ? std::stod(argv[4]) : 0;
  const std::vector<TickInput> recorded = bench::simulated_ticks();
  if (recorded.empty()) return 1;
  const auto dir = std::filesystem::temp_directory_path() / ("capstan_admin_bench_" + std::to_string(::getpid()));

  // Without the admin API: the ticks' own pace.
  std::vector<double> plain;
  {
    std::filesystem::remove_all(dir);
    auto setup = daemon_setup(recorded, dir, plain, 0);
    setup.options.max_ticks = 30;
    std::atomic<bool> stop{false};
    if (actors::run_daemon(std::move(setup), stop) != 0) return 1;
  }

  // With it, under load.
  std::filesystem::remove_all(dir);
  std::vector<double> loaded;
  auto setup = daemon_setup(recorded, dir, loaded, tick_period_s);
  setup.status = std::make_shared<actors::DaemonStatus>(dir.string(), nlohmann::json{{"bench", true}});
  admin::AdminOptions options;
  options.api_bind = "127.0.0.1:0";
  options.metrics_bind = "0";
  options.health_bind = "0";
  admin::AdminServer server(setup.status, options);
  if (!server.start().ok() || !server.api_port()) return 1;
  std::atomic<bool> stop{false};
  std::shared_ptr<const actors::DaemonStatus> status = setup.status;
  std::thread daemon([&] { actors::run_daemon(std::move(setup), stop); });
  while (status->readiness().reasons.size() > 0 && !stop) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const std::size_t ticks_before = loaded.size();

  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::beast::tcp_stream stream(io);
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(*server.api_port())));
  bhttp::request<bhttp::empty_body> req{bhttp::verb::get, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  boost::beast::flat_buffer buffer;
  std::vector<double> latency_ms;
  std::size_t late = 0, bytes = 0;
  const auto start = Clock::now();
  const auto period = std::chrono::duration<double>(1.0 / rate);
  for (std::size_t i = 0;; ++i) {
    const auto due = start + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(i));
    if (due - start > std::chrono::duration<double>(seconds)) break;
    if (Clock::now() < due)
      std::this_thread::sleep_until(due);
    else
      ++late;
    // Latency from the request's due time: a request that waits behind a slow one counts its wait.
    bhttp::write(stream, req);
    bhttp::response<bhttp::string_body> res;
    bhttp::read(stream, buffer, res);
    latency_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - due).count());
    bytes = res.body().size();
    if (res.result_int() != 200) {
      std::printf("status %d\n", res.result_int());
      break;
    }
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const std::size_t ticks_during = loaded.size() - ticks_before;
  stop = true;
  daemon.join();
  server.stop();
  std::filesystem::remove_all(dir);

  std::sort(latency_ms.begin(), latency_ms.end());
  char pace[64] = "back to back";
  if (tick_period_s > 0) std::snprintf(pace, sizeof pace, "a 30 s tick every %g s", tick_period_s);
  std::printf("GET %s (%d models, %zu bytes) at %.0f req/s for %.1f s while the daemon ticks %d models x 1 variant, %s\n",
              target.c_str(), kModels, bytes, static_cast<double>(latency_ms.size()) / elapsed, elapsed, kModels,
              pace);
  std::printf("  latency p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  (%zu requests, %zu started late)\n",
              percentile(latency_ms, 0.5), percentile(latency_ms, 0.9), percentile(latency_ms, 0.99),
              latency_ms.empty() ? 0 : latency_ms.back(), latency_ms.size(), late);
  std::printf("  tick median %.1f ms with the admin API under load (%zu ticks), %.1f ms without it (%zu ticks)\n",
              median_tick_ms(loaded, ticks_before), ticks_during, median_tick_ms(plain, 10), plain.size() - 10);
  return 0;
}
