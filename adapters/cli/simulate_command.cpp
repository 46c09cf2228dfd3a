// `capstan simulate`; see simulate_command.hpp.
#include "adapters/cli/simulate_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "adapters/cli/flags.hpp"
#include "adapters/cli/output_file.hpp"
#include "adapters/cli/policy_names.hpp"
#include "adapters/cli/seed_list.hpp"
#include "adapters/cli/simulate_table.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/core/format.hpp"
#include "domain/forecast/predictor.hpp"
#include "domain/policies/policy.hpp"
#include "sim/fleet_config.hpp"
#include "sim/fleet_oracle.hpp"
#include "sim/harness.hpp"
#include "sim/oracle.hpp"
#include "sim/policy_settings.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/seed_summary.hpp"
#include "sim/report/summary_json.hpp"
#include "sim/static_fleet.hpp"
#include "sim/sustainable_rate.hpp"
#include "sim/trace_demand.hpp"
#include "sim/trace_open.hpp"

namespace capstan::cli {
namespace {

struct SimulateFlags {
  std::string trace, fleet, report, json, record, trace_format = "auto", window, seeds;
  std::vector<std::string> policies;
  sim::PolicySettings settings;  // the SLO and its attainment from the flags, the rest as defaulted
  double speedup = 1, rate_scale = 1, tick_s = 30, oracle_window_s = 300, spread_buckets_s = 0;
  std::uint64_t seed = 1;
  bool hpa_target_given = false;
};

std::string echo_command(const SimulateFlags& f, const CLI::App& cmd) {
  std::ostringstream s;
  s << "capstan simulate --trace " << f.trace << " --fleet " << f.fleet;
  for (const auto& p : f.policies) s << " --policy " << p;
  s << " --slo-ttft-ms " << fmt_num(f.settings.slo.ttft_ms) << " --slo-itl-ms " << fmt_num(f.settings.slo.itl_ms)
    << (cmd.count("--seeds") ? " --seeds " + f.seeds : " --seed " + std::to_string(f.seed)) << " --tick-s "
    << fmt_num(f.tick_s);
  if (cmd.count("--slo-attainment")) s << " --slo-attainment " << fmt_num(f.settings.slo_attainment);
  if (cmd.count("--trace-format")) s << " --trace-format " << f.trace_format;
  if (cmd.count("--speedup")) s << " --speedup " << fmt_num(f.speedup);
  if (cmd.count("--rate-scale")) s << " --rate-scale " << fmt_num(f.rate_scale);
  if (cmd.count("--window")) s << " --window " << f.window;
  if (cmd.count("--spread-buckets")) s << " --spread-buckets " << fmt_num(f.spread_buckets_s);
  if (cmd.count("--predictor")) s << " --predictor " << f.settings.predictor;
  if (cmd.count("--hpa-target")) s << " --hpa-target " << fmt_num(f.settings.hpa_target_per_replica);
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

struct SeedRun {
  nlohmann::json summary;
  std::vector<sim::PolicyRun> runs;
  sim::Yardsticks yardsticks;
  long long simulated = 0;
  double oracle_s = 0, static_s = 0, estimate_s = 0, wall_s = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The yardsticks and every policy at one seed.
SeedRun simulate_seed(const SimulateFlags& f, const sim::FleetConfig& fleet, const std::vector<std::string>& policies,
                      sim::TraceOptions topts, std::uint64_t seed, std::ostream* record_out) {
  SeedRun out;
  topts.seed = seed;
  // --hpa-target, else the fleet's, else the hpa policy's default.
  const sim::PolicySettings settings = sim::with_fleet_settings(f.settings, {&fleet, 1}, {.hpa_target = f.hpa_target_given});
  const SloTargets slo = settings.slo;
  const auto wall_start = std::chrono::steady_clock::now();

  auto oracle_trace = open_trace_or_throw(f.trace, topts);
  sim::FleetOracleOptions foopts;
  foopts.window_s = f.oracle_window_s;
  foopts.attainment_target = settings.slo_attainment;
  foopts.seed = seed;
  auto oracle = sim::compute_fleet_oracle(fleet, *oracle_trace, slo, foopts);
  if (!oracle.ok()) throw UsageError("--trace: " + oracle.error().message);
  out.yardsticks.oracle = std::move(oracle).value();
  out.oracle_s = seconds_since(wall_start);

  const auto static_start = std::chrono::steady_clock::now();
  sim::StaticFleetOptions sopts;
  sopts.attainment_target = settings.slo_attainment;
  sopts.seed = seed;
  sopts.from_start = true;
  const sim::TraceOpener opener = [&]() -> Result<std::unique_ptr<sim::TraceSource>> {
    return sim::open_trace(f.trace, topts);
  };
  auto fixed = sim::best_static_fleet(fleet, opener, slo, sopts);
  if (!fixed.ok()) throw UsageError("--trace: " + fixed.error().message);
  out.yardsticks.static_fleet = std::move(fixed).value();
  out.static_s = seconds_since(static_start);

  const auto estimate_start = std::chrono::steady_clock::now();
  auto demand_trace = open_trace_or_throw(f.trace, topts);
  auto demand = sim::measure_trace_demand(*demand_trace, 60, 20000, seed);
  if (!demand.ok()) throw UsageError("--trace: " + demand.error().message);
  sim::OracleOptions oopts;
  oopts.window_s = f.oracle_window_s;
  oopts.rate.seed = seed;
  oopts.rate.attainment_target = settings.slo_attainment;
  out.yardsticks.estimate = sim::compute_oracle(fleet, demand.value(), slo, oopts);
  out.estimate_s = seconds_since(estimate_start);

  const PolicyConfig pconfig = sim::policy_config(settings);
  sim::HarnessOptions hopts;
  hopts.tick_s = f.tick_s;
  hopts.slo = slo;
  hopts.seed = seed;
  for (const auto& name : policies) {
    if (record_out != nullptr) {
      hopts.on_tick = [&out = *record_out, name](const TickInput& input, const std::vector<Decision>& decisions) {
        out << encode_tick_record({name, input, decisions}).dump() << "\n";
      };
    }
    auto policy = make_policy(name, pconfig);
    if (!policy.ok()) {
      sim::PolicyRun failed;
      failed.policy = name;
      failed.error = policy.error().message;
      out.runs.push_back(std::move(failed));
      continue;
    }
    auto run = sim::run_policy(*policy.value(), fleet, open_trace_or_throw(f.trace, topts), hopts);
    if (!run.ok()) throw UsageError("--trace: " + run.error().message);
    run.value().policy = name;
    out.simulated += run.value().report.requests;
    out.runs.push_back(std::move(run).value());
  }
  out.wall_s = seconds_since(wall_start);
  out.summary = sim::summary_json(f.trace, f.fleet, slo, out.yardsticks, out.runs);
  out.summary["policy_config"] = {{"tail_probability", pconfig.tail_probability},
                                  {"client_timeout_s", pconfig.client_timeout_s}};
  return out;
}

std::string counts_text(const std::vector<std::string>& variants, const std::vector<int>& counts) {
  std::string out;
  for (std::size_t i = 0; i < variants.size() && i < counts.size(); ++i)
    if (counts[i] > 0) out += (out.empty() ? "" : " + ") + std::to_string(counts[i]) + " " + variants[i];
  return out.empty() ? "none" : out;
}

void print_yardsticks(const SeedRun& one) {
  const sim::FleetOracle& oracle = *one.yardsticks.oracle;
  std::printf("oracle: %s GPU-hours (cost %s, start-ups %s) over %zu windows of %s s, fleet-level lower bound "
              "(%lld fleet simulations)",
              fmt_num(oracle.gpu_hours).c_str(), fmt_num(oracle.cost).c_str(),
              fmt_num(oracle.startup_gpu_hours).c_str(), oracle.windows.size(), fmt_num(oracle.window_s).c_str(),
              oracle.probes);
  if (oracle.windows_pooled > 0)
    std::printf(" (%d windows below the target, made up by the others)", oracle.windows_pooled);
  if (oracle.windows_over_capacity > 0) {
    double lowest = oracle.attainment_target;
    for (const auto& w : oracle.windows)
      if (w.over_capacity) lowest = std::min(lowest, w.reachable_attainment);
    std::printf(" (%d windows above the fleet's capacity even at max, planned for what max reaches there, "
                "down to %s)",
                oracle.windows_over_capacity, fmt_num(lowest).c_str());
  }
  const sim::StaticFleet& fixed = *one.yardsticks.static_fleet;
  std::printf("\nbest static fleet: %s, %s GPU-hours (cost %s), attainment %s%s",
              counts_text(fixed.variants, fixed.best.replicas).c_str(), fmt_num(fixed.best.gpu_hours).c_str(),
              fmt_num(fixed.best.cost).c_str(), fmt_num(fixed.best.attainment).c_str(),
              fixed.best.meets ? ""
                               : (" (none meets the target: the cheapest reaching the " +
                                  fmt_num(fixed.reachable_attainment) + " that every variant at max reaches)")
                                     .c_str());
  if (fixed.from_start)
    std::printf("; asked for at t = 0 beside the fleet's initial replicas (the rest cold), attainment %s",
                fmt_num(fixed.from_start->attainment).c_str());
  std::printf("; alone:");
  for (std::size_t i = 0; i < fixed.variants.size(); ++i) {
    if (!fixed.alone[i]) {
      std::printf(" %s none meets", fixed.variants[i].c_str());
      continue;
    }
    std::printf(" %s %s GPU-hours", counts_text(fixed.variants, fixed.alone[i]->replicas).c_str(),
                fmt_num(fixed.alone[i]->gpu_hours).c_str());
  }
  const sim::Oracle& estimate = *one.yardsticks.estimate;
  std::printf("\nper-replica estimate (not a bound): %s GPU-hours; sustainable req/s per replica:",
              fmt_num(estimate.gpu_hours).c_str());
  for (std::size_t i = 0; i < estimate.variants.size(); ++i)
    std::printf(" %s %s", estimate.variants[i].c_str(), fmt_num(estimate.sustainable[i].rate_rps).c_str());
  if (!estimate.feasible) std::printf(" (no variant meets the SLO)");
  std::printf("\nsimulated %lld requests in %.2f s wall (oracle %.2f s, static fleet %.2f s, estimate %.2f s): "
              "%.0f requests/s\n",
              one.simulated, one.wall_s, one.oracle_s, one.static_s, one.estimate_s,
              one.wall_s > 0 ? static_cast<double>(one.simulated) / one.wall_s : 0.0);
}

void print_seed_line(std::uint64_t seed, const SeedRun& one) {
  std::printf("seed %llu: oracle %s GPU-hours, best static fleet %s %s GPU-hours (%.2f s wall)\n",
              static_cast<unsigned long long>(seed), fmt_num(one.yardsticks.oracle->gpu_hours).c_str(),
              counts_text(one.yardsticks.static_fleet->variants, one.yardsticks.static_fleet->best.replicas).c_str(),
              fmt_num(one.yardsticks.static_fleet->best.gpu_hours).c_str(), one.wall_s);
  std::fflush(stdout);
}

void run_simulate(const SimulateFlags& given, const CLI::App& cmd) {
  SimulateFlags f = given;
  f.hpa_target_given = cmd.count("--hpa-target") > 0;
  if (f.hpa_target_given && !(std::isfinite(f.settings.hpa_target_per_replica) && f.settings.hpa_target_per_replica > 0)) {
    throw UsageError("--hpa-target must be a finite number > 0, got " + fmt_num(f.settings.hpa_target_per_replica));
  }
  require_nonnegative(f.settings.slo.ttft_ms, "--slo-ttft-ms");
  require_nonnegative(f.settings.slo.itl_ms, "--slo-itl-ms");
  if (!f.settings.slo.is_explicit())
    throw UsageError("--slo-ttft-ms and --slo-itl-ms cannot both be 0: 0 leaves that metric unconstrained, "
                     "and the SLO needs at least one target");
  if (!(f.settings.slo_attainment >= sim::kMinAttainmentTarget && f.settings.slo_attainment <= sim::kMaxAttainmentTarget))
    throw UsageError("--slo-attainment must be in " + fmt_num(sim::kMinAttainmentTarget) + ".." +
                     fmt_num(sim::kMaxAttainmentTarget) + ", got " + fmt_num(f.settings.slo_attainment));
  if (PredictorKind kind{}; !parse_predictor_kind(f.settings.predictor, kind)) {
    throw UsageError("--predictor must be one of " + predictor_names() + ", got '" + f.settings.predictor + "'");
  }
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

  if (cmd.count("--seeds") && cmd.count("--seed")) throw UsageError("--seed and --seeds: give one or the other");
  const std::vector<std::uint64_t> seeds =
      cmd.count("--seeds") ? parse_seed_list(f.seeds, "--seeds") : std::vector<std::uint64_t>{f.seed};

  const std::string command = echo_command(f, cmd);
  std::cout << "$ " << command << "\n" << std::flush;
  {
    sim::TraceOptions first_open = topts;  // warns once, not at every seed's and policy's open
    first_open.on_warning = [](const std::string& warning) { std::cerr << "capstan: warning: " << warning << "\n"; };
    open_trace_or_throw(f.trace, first_open);
  }
  std::vector<nlohmann::json> summaries;
  std::vector<sim::PolicyRun> first_runs;
  for (const std::uint64_t seed : seeds) {
    SeedRun one = simulate_seed(f, fleet.value(), policies, topts, seed, record_out.get());
    if (seeds.size() == 1) {
      std::cout << format_simulate_table(one.summary);
      print_yardsticks(one);
    } else {
      print_seed_line(seed, one);
    }
    if (summaries.empty()) first_runs = std::move(one.runs);
    summaries.push_back(std::move(one.summary));
  }
  nlohmann::json document = summaries.front();
  if (seeds.size() > 1) {
    const nlohmann::json aggregate = sim::seed_aggregate_json(seeds, summaries);
    std::cout << "over " << seeds.size() << " seeds, median (worst):\n" << format_seeds_table(aggregate);
    std::cout << "oracle GPU-hours " << median_worst_text(aggregate["oracle"]["gpu_hours"], 2)
              << "; best static fleet GPU-hours " << median_worst_text(aggregate["static_fleet"]["gpu_hours"], 2)
              << "\n";
    document = {{"trace", f.trace}, {"fleet", f.fleet}, {"slo", summaries.front().at("slo")},
                {"seeds", seeds},   {"aggregate", aggregate}, {"per_seed", summaries}};
  }
  std::fflush(stdout);
  const auto dump = [](const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (json_out) *json_out << dump(document, 2) << "\n";
  if (report_out) {
    nlohmann::json page = summaries.front();
    if (seeds.size() > 1) page["seed_aggregate"] = document["aggregate"];
    *report_out << sim::render_html_report(page, first_runs, command);
  }
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
  cmd->add_option("--seeds", f->seeds,
                  "run every seed of a list (1-8, 1,3,5) and report each figure's median and worst");
  cmd->add_option("--tick-s", f->tick_s, "policy tick interval, s")->capture_default_str();
  cmd->add_option("--trace-format", f->trace_format, "auto, azure, mooncake, servegen, native")->capture_default_str();
  cmd->add_option("--speedup", f->speedup, "divide trace times by this")->capture_default_str();
  cmd->add_option("--rate-scale", f->rate_scale, "thin (<1) or duplicate (>1) requests")->capture_default_str();
  cmd->add_option("--window", f->window, "FROM:TO seconds of the trace");
  cmd->add_option("--predictor", f->settings.predictor,
                  "throughput's load predictor: constant, holt, kalman, arima, seasonal")
      ->capture_default_str();
  cmd->add_option("--hpa-target", f->settings.hpa_target_per_replica,
                  "hpa: running + waiting requests per replica it targets (default: the fleet's hpa_target_per_replica, else 32)");
  cmd->add_option("--spread-buckets", f->spread_buckets_s,
                  "spread requests sharing a timestamp evenly over this many seconds (quantised traces)");
  cmd->add_option("--oracle-window-s", f->oracle_window_s, "oracle planning window, s (the oracle holds a count per window)")->capture_default_str();
  cmd->add_option("--json", f->json, "write the summary JSON here");
  cmd->add_option("--report", f->report, "write the HTML report here");
  cmd->add_option("--record", f->record,
                  "write every tick's input and decisions here, one JSON line per tick and policy");
  cmd->callback([f, cmd] { run_simulate(*f, *cmd); });
}

}  // namespace capstan::cli
