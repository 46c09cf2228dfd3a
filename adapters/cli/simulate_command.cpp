// `capstan simulate`; see simulate_command.hpp.
#include "adapters/cli/simulate_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "adapters/cli/flags.hpp"
#include "adapters/cli/output_file.hpp"
#include "adapters/cli/policy_names.hpp"
#include "adapters/cli/simulate_table.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/core/format.hpp"
#include "domain/policies/policy.hpp"
#include "sim/fleet_config.hpp"
#include "sim/harness.hpp"
#include "sim/oracle.hpp"
#include "sim/policy_settings.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/summary_json.hpp"
#include "sim/sustainable_rate.hpp"
#include "sim/trace_demand.hpp"
#include "sim/trace_open.hpp"

namespace capstan::cli {
namespace {

struct SimulateFlags {
  std::string trace, fleet, report, json, record, trace_format = "auto", window;
  std::vector<std::string> policies;
  sim::PolicySettings settings;  // the SLO and its attainment from the flags, the rest as defaulted
  double speedup = 1, rate_scale = 1, tick_s = 30, oracle_window_s = 300, spread_buckets_s = 0;
  std::uint64_t seed = 1;
};

std::string echo_command(const SimulateFlags& f, const CLI::App& cmd) {
  std::ostringstream s;
  s << "capstan simulate --trace " << f.trace << " --fleet " << f.fleet;
  for (const auto& p : f.policies) s << " --policy " << p;
  s << " --slo-ttft-ms " << fmt_num(f.settings.slo.ttft_ms) << " --slo-itl-ms " << fmt_num(f.settings.slo.itl_ms)
    << " --seed " << f.seed << " --tick-s " << fmt_num(f.tick_s);
  if (cmd.count("--slo-attainment")) s << " --slo-attainment " << fmt_num(f.settings.slo_attainment);
  if (cmd.count("--trace-format")) s << " --trace-format " << f.trace_format;
  if (cmd.count("--speedup")) s << " --speedup " << fmt_num(f.speedup);
  if (cmd.count("--rate-scale")) s << " --rate-scale " << fmt_num(f.rate_scale);
  if (cmd.count("--window")) s << " --window " << f.window;
  if (cmd.count("--spread-buckets")) s << " --spread-buckets " << fmt_num(f.spread_buckets_s);
  if (cmd.count("--oracle-window-s")) s << " --oracle-window-s " << fmt_num(f.oracle_window_s);
  if (!f.json.empty()) s << " --json " << f.json;
  if (!f.report.empty()) s << " --report " << f.report;
  if (!f.record.empty()) s << " --record " << f.record;
  return s.str();
}

std::unique_ptr<sim::TraceSource> open_trace_or_throw(const std::string& path, const sim::TraceOptions& o) {
  auto trace = sim::open_trace(path, o);
  if (!trace.ok()) throw UsageError("--trace: " + trace.error().message);
  return std::move(trace).value();
}

void run_simulate(const SimulateFlags& f, const CLI::App& cmd) {
  require_nonnegative(f.settings.slo.ttft_ms, "--slo-ttft-ms");
  require_nonnegative(f.settings.slo.itl_ms, "--slo-itl-ms");
  if (!f.settings.slo.is_explicit())
    throw UsageError("--slo-ttft-ms and --slo-itl-ms cannot both be 0: 0 leaves that metric unconstrained, "
                     "and the SLO needs at least one target");
  if (!(f.settings.slo_attainment >= sim::kMinAttainmentTarget && f.settings.slo_attainment <= sim::kMaxAttainmentTarget))
    throw UsageError("--slo-attainment must be in " + fmt_num(sim::kMinAttainmentTarget) + ".." +
                     fmt_num(sim::kMaxAttainmentTarget) + ", got " + fmt_num(f.settings.slo_attainment));
  require_positive(f.speedup, "--speedup");
  require_positive(f.rate_scale, "--rate-scale");
  require_positive(f.tick_s, "--tick-s");
  require_positive(f.oracle_window_s, "--oracle-window-s");
  sim::TraceOptions topts;
  if (!sim::parse_trace_format(f.trace_format, topts.format))
    throw UsageError("--trace-format must be one of auto, azure, mooncake, servegen, native, got '" +
                     f.trace_format + "'");
  if (cmd.count("--window")) {
    auto w = sim::parse_window(f.window);
    if (!w.ok()) throw UsageError("--window: " + w.error().message);
    topts.window_from_s = w.value().first;
    topts.window_to_s = w.value().second;
  }
  topts.speedup = f.speedup;
  topts.rate_scale = f.rate_scale;
  topts.seed = f.seed;
  topts.spread_buckets_s = f.spread_buckets_s;
  if (auto e = sim::validate(topts)) throw UsageError(e->message);
  if (!std::filesystem::exists(f.trace)) throw UsageError("--trace: no such file '" + f.trace + "'");
  if (!std::filesystem::exists(f.fleet)) throw UsageError("--fleet: no such file '" + f.fleet + "'");
  auto fleet = sim::load_fleet_config(f.fleet);
  if (!fleet.ok()) throw UsageError("--fleet: " + fleet.error().message);
  const auto policies = resolve_policy_names(f.policies);
  auto json_out = open_output(f.json, "--json");
  auto report_out = open_output(f.report, "--report");
  auto record_out = open_output(f.record, "--record");

  const std::string command = echo_command(f, cmd);
  std::cout << "$ " << command << "\n" << std::flush;
  sim::PolicySettings settings = f.settings;
  settings.client_timeout_s = sim::longest_client_timeout_s({&fleet.value(), 1});  // the operator knows its gateway's
  const SloTargets slo = settings.slo;
  const auto wall_start = std::chrono::steady_clock::now();

  sim::TraceOptions first_open = topts;  // warns once, not at every policy's open
  first_open.on_warning = [](const std::string& warning) { std::cerr << "capstan: warning: " << warning << "\n"; };
  auto demand_trace = open_trace_or_throw(f.trace, first_open);
  auto demand = sim::measure_trace_demand(*demand_trace, 60, 20000, f.seed);
  if (!demand.ok()) throw UsageError("--trace: " + demand.error().message);
  sim::OracleOptions oopts;
  oopts.window_s = f.oracle_window_s;
  oopts.rate.seed = f.seed;
  oopts.rate.attainment_target = settings.slo_attainment;
  const sim::Oracle oracle = sim::compute_oracle(fleet.value(), demand.value(), slo, oopts);
  const double oracle_wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  const PolicyConfig pconfig = sim::policy_config(settings);
  sim::HarnessOptions hopts;
  hopts.tick_s = f.tick_s;
  hopts.slo = slo;
  hopts.seed = f.seed;
  std::vector<sim::PolicyRun> runs;
  long long simulated = 0;
  for (const auto& name : policies) {
    if (record_out) {
      hopts.on_tick = [&out = *record_out, name](const TickInput& input, const std::vector<Decision>& decisions) {
        out << encode_tick_record({name, input, decisions}).dump() << "\n";
      };
    }
    auto policy = make_policy(name, pconfig);
    if (!policy.ok()) {
      sim::PolicyRun failed;
      failed.policy = name;
      failed.error = policy.error().message;
      runs.push_back(std::move(failed));
      continue;
    }
    auto run = sim::run_policy(*policy.value(), fleet.value(), open_trace_or_throw(f.trace, topts), hopts);
    if (!run.ok()) throw UsageError("--trace: " + run.error().message);
    run.value().policy = name;
    simulated += run.value().report.requests;
    runs.push_back(std::move(run).value());
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  nlohmann::json summary = sim::summary_json(f.trace, f.fleet, slo, oracle, runs);
  summary["policy_config"] = {{"tail_probability", pconfig.tail_probability},
                              {"client_timeout_s", pconfig.client_timeout_s}};
  std::cout << format_simulate_table(summary);
  std::printf("oracle: %s GPU-hours (cost %s) over %zu windows of %s s; sustainable req/s per replica:",
              fmt_num(oracle.gpu_hours).c_str(), fmt_num(oracle.cost).c_str(), oracle.windows.size(),
              fmt_num(oracle.window_s).c_str());
  for (std::size_t i = 0; i < oracle.variants.size(); ++i)
    std::printf(" %s %s", oracle.variants[i].c_str(), fmt_num(oracle.sustainable[i].rate_rps).c_str());
  if (!oracle.feasible) std::printf(" (no variant meets the SLO: no bound)");
  if (oracle.windows_over_capacity > 0)
    std::printf(" (%d windows above the fleet's capacity)", oracle.windows_over_capacity);
  std::printf("\nsimulated %lld requests in %.2f s wall (oracle %.2f s): %.0f requests/s\n", simulated, wall_s,
              oracle_wall_s, wall_s > 0 ? static_cast<double>(simulated) / wall_s : 0.0);
  std::fflush(stdout);
  const auto dump = [](const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (json_out) *json_out << dump(summary, 2) << "\n";
  if (report_out) *report_out << sim::render_html_report(summary, runs, command);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto f = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand("simulate", "benchmark policies over a trace in virtual time, with an oracle");
  cmd->add_option("--trace", f->trace, "trace file (Azure, Mooncake, ServeGen, native)")->required();
  cmd->add_option("--fleet", f->fleet, "fleet YAML (ops/examples/fleet.yaml)")->required();
  cmd->add_option("--policy", f->policies, "policy name, repeatable; 'all' = every registered")->required();
  cmd->add_option("--slo-ttft-ms", f->settings.slo.ttft_ms, "TTFT target, ms (0: none)")->capture_default_str();
  cmd->add_option("--slo-itl-ms", f->settings.slo.itl_ms, "mean ITL target, ms (0: none)")->capture_default_str();
  cmd->add_option("--slo-attainment", f->settings.slo_attainment,
                  "share of requests within both targets: the oracle sizes for it, the policies' tail "
                  "probability is 1 - it")
      ->capture_default_str();
  cmd->add_option("--seed", f->seed, "seed of every random draw")->capture_default_str();
  cmd->add_option("--tick-s", f->tick_s, "policy tick interval, s")->capture_default_str();
  cmd->add_option("--trace-format", f->trace_format, "auto, azure, mooncake, servegen, native")->capture_default_str();
  cmd->add_option("--speedup", f->speedup, "divide trace times by this")->capture_default_str();
  cmd->add_option("--rate-scale", f->rate_scale, "thin (<1) or duplicate (>1) requests")->capture_default_str();
  cmd->add_option("--window", f->window, "FROM:TO seconds of the trace");
  cmd->add_option("--spread-buckets", f->spread_buckets_s,
                  "spread requests sharing a timestamp evenly over this many seconds (quantised traces)");
  cmd->add_option("--oracle-window-s", f->oracle_window_s, "oracle planning window, s")->capture_default_str();
  cmd->add_option("--json", f->json, "write the summary JSON here");
  cmd->add_option("--report", f->report, "write the HTML report here");
  cmd->add_option("--record", f->record,
                  "write every tick's input and decisions here, one JSON line per tick and policy");
  cmd->callback([f, cmd] { run_simulate(*f, *cmd); });
}

}  // namespace capstan::cli
