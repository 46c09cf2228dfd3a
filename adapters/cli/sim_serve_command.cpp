// `capstan sim serve`; see sim_serve_command.hpp.
#include "adapters/cli/sim_serve_command.hpp"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "adapters/cli/flags.hpp"
#include "adapters/http/http_server.hpp"
#include "adapters/sim_serve/fleet_endpoints.hpp"
#include "adapters/sim_serve/file_sd.hpp"
#include "adapters/sim_serve/live_fleet.hpp"
#include "domain/core/format.hpp"
#include "sim/fleet_config.hpp"
#include "sim/synthetic_trace.hpp"
#include "sim/trace_open.hpp"

namespace capstan::cli {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct SimServeFlags {
  std::string fleet, trace, trace_format = "auto", synthetic, listen = "127.0.0.1:9400", file_sd;
  double speedup = 1, trace_speedup = 1, rate_scale = 1, duration_s = 0, tick_ms = 100;
  std::uint64_t seed = 1;
};

struct ListenAddress {
  std::string host;
  unsigned short port = 0;
};

ListenAddress parse_listen(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  const auto bad = [&] { return UsageError("--listen must be HOST:PORT (e.g. 127.0.0.1:9400), got '" + text + "'"); };
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) throw bad();
  const std::string port = text.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5) throw bad();
  const unsigned long value = std::stoul(port);
  if (value > 65535) throw bad();
  return {text.substr(0, colon), static_cast<unsigned short>(value)};
}

// "poisson:RATE": Poisson arrivals of 1,024-token prompts and 256-token answers.
std::unique_ptr<sim::TraceSource> synthetic_trace(const std::string& spec, double virtual_duration_s,
                                                  std::uint64_t seed) {
  const std::string prefix = "poisson:";
  const auto bad = [&] { return UsageError("--synthetic must be poisson:RATE (requests/s > 0), got '" + spec + "'"); };
  if (spec.rfind(prefix, 0) != 0) throw bad();
  double rate = 0;
  try {
    std::size_t used = 0;
    rate = std::stod(spec.substr(prefix.size()), &used);
    if (used != spec.size() - prefix.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (!(rate > 0) || !std::isfinite(rate)) throw bad();
  return std::make_unique<sim::SyntheticTrace>(sim::poisson_rate(rate), virtual_duration_s,
                                               sim::fixed_lengths(1024, 256), seed);
}

std::unique_ptr<sim::TraceSource> open_workload(const SimServeFlags& f) {
  if (f.trace.empty() == f.synthetic.empty()) throw UsageError("give exactly one of --trace FILE or --synthetic poisson:RATE");
  if (!f.synthetic.empty()) {
    const double duration = f.duration_s > 0 ? f.duration_s * f.speedup : std::numeric_limits<double>::infinity();
    return synthetic_trace(f.synthetic, duration, f.seed);
  }
  sim::TraceOptions topts;
  if (!sim::parse_trace_format(f.trace_format, topts.format))
    throw UsageError("--trace-format must be one of auto, azure, mooncake, servegen, native, got '" + f.trace_format + "'");
  topts.speedup = f.trace_speedup;
  topts.rate_scale = f.rate_scale;
  topts.seed = f.seed;
  if (!std::filesystem::exists(f.trace)) throw UsageError("--trace: no such file '" + f.trace + "'");
  auto trace = sim::open_trace(f.trace, topts);
  if (!trace.ok()) throw UsageError("--trace: " + trace.error().message);
  return std::move(trace).value();
}

// The clock, the file-SD writer and the stop conditions, all on the io_context thread.
class ServeLoop {
 public:
  ServeLoop(asio::io_context& io, sim_serve::LiveFleet& fleet, http::HttpServer& server, const SimServeFlags& f,
            std::string host_port)
      : fleet_(fleet), server_(server), flags_(f), host_port_(std::move(host_port)), timer_(io),
        signals_(io, SIGINT, SIGTERM), start_(Clock::now()) {}

  void start() {
    write_file_sd();
    signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
      if (!ec) stop(signal == SIGINT ? "SIGINT" : "SIGTERM");
    });
    schedule();
  }

  const std::string& reason() const { return reason_; }
  double wall_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  void schedule() {
    timer_.expires_after(std::chrono::microseconds(static_cast<long long>(flags_.tick_ms * 1000)));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec && reason_.empty()) tick();
    });
  }

  void tick() {
    const double wall = wall_s();
    const bool duration_over = flags_.duration_s > 0 && wall >= flags_.duration_s;
    const double wall_for_sim = duration_over ? flags_.duration_s : wall;
    const bool more = fleet_.advance_to(wall_for_sim * flags_.speedup);
    write_file_sd();
    if (fleet_.error()) return stop("trace error");
    if (!more) return stop("trace done, fleet idle");
    if (duration_over) return stop("--duration-s reached");
    schedule();
  }

  void write_file_sd() {
    if (flags_.file_sd.empty()) return;
    const auto targets = sim_serve::file_sd_targets(host_port_, fleet_.pods());
    if (targets == last_targets_) return;
    auto written = sim_serve::write_file_atomically(flags_.file_sd, targets.dump(2) + "\n");
    if (!written.ok()) {
      std::cerr << "capstan: --file-sd: " << written.error().message << "\n";
      return;  // retried at the next change
    }
    last_targets_ = targets;
  }

  void stop(const std::string& reason) {
    if (!reason_.empty()) return;
    reason_ = reason;
    server_.stop();
    timer_.cancel();
    signals_.cancel();
  }

  sim_serve::LiveFleet& fleet_;
  http::HttpServer& server_;
  const SimServeFlags& flags_;
  std::string host_port_;
  asio::steady_timer timer_;
  asio::signal_set signals_;
  Clock::time_point start_;
  nlohmann::json last_targets_;
  std::string reason_;
};

void run_sim_serve(const SimServeFlags& f) {
  require_positive(f.speedup, "--speedup");
  require_positive(f.trace_speedup, "--trace-speedup");
  require_positive(f.rate_scale, "--rate-scale");
  require_nonnegative(f.duration_s, "--duration-s");
  require_positive(f.tick_ms, "--tick-ms");
  const ListenAddress listen = parse_listen(f.listen);
  if (!std::filesystem::exists(f.fleet)) throw UsageError("--fleet: no such file '" + f.fleet + "'");
  auto config = sim::load_fleet_config(f.fleet);
  if (!config.ok()) throw UsageError("--fleet: " + config.error().message);
  sim_serve::LiveFleet fleet(config.value(), open_workload(f), f.seed);

  asio::io_context io;
  http::HttpRouter router;
  sim_serve::add_fleet_routes(router, fleet);
  http::HttpServerOptions options;
  options.address = listen.host;
  options.port = listen.port;
  http::HttpServer server(io, std::move(router), options);
  const auto port = server.listen();
  if (!port.ok()) throw UsageError("--listen: " + port.error().message);
  const std::string host_port = listen.host + ":" + std::to_string(port.value());

  ServeLoop loop(io, fleet, server, f, host_port);
  loop.start();
  std::printf("capstan sim serve: listening on http://%s (model %s, %zu pods, speedup %s)\n", host_port.c_str(),
              fleet.model().c_str(), fleet.pods().size(), fmt_num(f.speedup).c_str());
  std::fflush(stdout);
  io.run();

  const sim::RunReport r = fleet.report();
  std::printf("capstan sim serve: stopped (%s) after %.1f s wall, %s s virtual: %lld requests, %lld completed, "
              "%lld failed, %zu scale actions, %s GPU-hours\n",
              loop.reason().c_str(), loop.wall_s(), fmt_num(fleet.now_s()).c_str(), r.requests, r.completed, r.failed,
              r.scale_actions.size(), fmt_num(r.gpu_hours).c_str());
  std::fflush(stdout);
  if (auto error = fleet.error()) throw UsageError("--trace: " + error->message);
}

CLI::App* sim_subcommand(CLI::App& app) {
  try {
    return app.get_subcommand("sim");
  } catch (const CLI::OptionNotFound&) {
    return app.add_subcommand("sim", "the simulated fleet")->require_subcommand(1);
  }
}

}  // namespace

void add_sim_serve_command(CLI::App& app) {
  auto f = std::make_shared<SimServeFlags>();
  CLI::App* cmd = sim_subcommand(app)->add_subcommand(
      "serve", "run the simulated fleet in real time: per-pod vLLM metrics, router metrics, Kubernetes Scale API");
  cmd->add_option("--fleet", f->fleet, "fleet YAML (ops/examples/fleet.yaml)")->required();
  cmd->add_option("--trace", f->trace, "trace file (Azure, Mooncake, ServeGen, native)");
  cmd->add_option("--synthetic", f->synthetic, "poisson:RATE instead of a trace (1024 in / 256 out tokens)");
  cmd->add_option("--trace-format", f->trace_format, "auto, azure, mooncake, servegen, native")->capture_default_str();
  cmd->add_option("--trace-speedup", f->trace_speedup, "divide trace times by this")->capture_default_str();
  cmd->add_option("--rate-scale", f->rate_scale, "thin (<1) or duplicate (>1) requests")->capture_default_str();
  cmd->add_option("--speedup", f->speedup, "virtual seconds per wall second")->capture_default_str();
  cmd->add_option("--listen", f->listen, "HOST:PORT to serve on (port 0: any free port)")->capture_default_str();
  cmd->add_option("--file-sd", f->file_sd, "keep a Prometheus file-SD target list of the pods here");
  cmd->add_option("--duration-s", f->duration_s, "stop after this many wall seconds (0: no limit)")->capture_default_str();
  cmd->add_option("--tick-ms", f->tick_ms, "advance virtual time every this many wall ms")->capture_default_str();
  cmd->add_option("--seed", f->seed, "seed of every random draw")->capture_default_str();
  cmd->callback([f] { run_sim_serve(*f); });
}

}  // namespace capstan::cli
