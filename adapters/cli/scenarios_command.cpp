// `capstan scenarios`; see scenarios_command.hpp.
#include "adapters/cli/scenarios_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "adapters/cli/flags.hpp"
#include "adapters/cli/policy_names.hpp"
#include "adapters/cli/scenarios_table.hpp"
#include "adapters/cli/seed_list.hpp"
#include "adapters/cli/output_file.hpp"
#include "adapters/cli/usage_error.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/core/format.hpp"
#include "sim/report/scenarios_html.hpp"
#include "sim/scenario_runner.hpp"
#include "sim/scenario_seeds.hpp"

namespace capstan::cli {
namespace {

constexpr const char* kDefaultPolicy = "hybrid";

struct ScenariosFlags {
  std::string dir, json, report, seeds;  // seeds: empty = each scenario's own
  std::string record;  // a folder: one JSON-lines file of ticks per run
  std::vector<std::string> only;
  std::vector<std::string> policies{kDefaultPolicy};
  int jobs = 0;  // 0: one per core
  double duration_s = 0;  // 0: each scenario's own
};

// The scenario folder: --dir, else sim/scenarios under the working directory, else
// next to the binary's source tree (build dir one level below the project root).
std::string scenario_dir(const std::string& flag) {
  if (!flag.empty()) {
    if (!std::filesystem::is_directory(flag)) throw UsageError("--dir: no such directory '" + flag + "'");
    return flag;
  }
  std::vector<std::filesystem::path> candidates{"sim/scenarios"};
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "sim" / "scenarios");
  for (const auto& c : candidates)
    if (std::filesystem::is_directory(c, ec)) return c.string();
  throw UsageError("--dir: no sim/scenarios folder here or next to the binary; name one with --dir");
}

std::vector<sim::Scenario> load_selected(const ScenariosFlags& f) {
  const std::string dir = scenario_dir(f.dir);
  auto all = sim::load_scenarios(dir);
  if (!all.ok()) throw UsageError(all.error().message);
  if (f.only.empty()) return std::move(all).value();
  std::vector<sim::Scenario> out;
  for (const auto& name : f.only) {
    auto it = std::find_if(all.value().begin(), all.value().end(), [&](const auto& s) { return s.name == name; });
    if (it == all.value().end()) {
      std::string known;
      for (const auto& s : all.value()) known += (known.empty() ? "" : ", ") + s.name;
      throw UsageError("--only: no scenario '" + name + "' in " + dir + "; known: " + known);
    }
    if (std::none_of(out.begin(), out.end(), [&](const auto& s) { return s.name == name; })) out.push_back(*it);
  }
  return out;
}


std::string echo_command(const ScenariosFlags& f, const std::vector<std::string>& policies) {
  std::ostringstream s;
  s << "capstan scenarios run";
  for (const auto& o : f.only) s << " --only " << o;
  for (const auto& p : policies) s << " --policy " << p;
  if (!f.dir.empty()) s << " --dir " << f.dir;
  if (f.duration_s > 0) s << " --duration-s " << fmt_num(f.duration_s);
  if (!f.seeds.empty()) s << " --seeds " << f.seeds;
  if (!f.json.empty()) s << " --json " << f.json;
  if (!f.report.empty()) s << " --report " << f.report;
  if (!f.record.empty()) s << " --record " << f.record;
  return s.str();
}

// Runs make(i) for i in [0, n) on `jobs` threads; the values in index order, or the
// first error (by index) as a UsageError.
template <class T, class Make>
std::vector<T> in_parallel(std::size_t n, int jobs, Make make) {
  std::vector<std::optional<Result<T>>> slots(n);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) slots[i] = make(i);
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  std::vector<T> out;
  for (auto& slot : slots) {
    if (!slot->ok()) throw UsageError(slot->error().message);
    out.push_back(std::move(*slot).value());
  }
  return out;
}

// Where --record writes one run's ticks: RECORD/<scenario>.<policy>.seed<N>.jsonl.
std::filesystem::path record_path(const std::string& dir, const sim::PreparedScenario& p, const std::string& policy) {
  return std::filesystem::path(dir) /
         (p.scenario.name + "." + policy + ".seed" + std::to_string(p.scenario.seed) + ".jsonl");
}

// Every (scenario, policy) pair; results in input order. With a record folder, each
// run writes every tick it decided, as `simulate --record` does, to a file of its own.
std::vector<sim::ScenarioResult> run_all(const std::vector<sim::PreparedScenario>& prepared,
                                         const std::vector<std::string>& policies, int jobs,
                                         const std::string& record_dir) {
  return in_parallel<sim::ScenarioResult>(prepared.size() * policies.size(), jobs, [&](std::size_t i) {
    const sim::PreparedScenario& p = prepared[i / policies.size()];
    const std::string& policy = policies[i % policies.size()];
    if (record_dir.empty()) return sim::run_scenario(p, policy);
    const auto path = record_path(record_dir, p, policy);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return Result<sim::ScenarioResult>(invalid_argument("--record: cannot write '" + path.string() + "'"));
    return sim::run_scenario(p, policy, [&out, &policy](const TickInput& input, const std::vector<Decision>& decisions) {
      out << encode_tick_record({policy, input, decisions}).dump() << "\n";
    });
  });
}

int run_scenarios(const ScenariosFlags& f) {
  if (f.jobs < 0) throw UsageError("--jobs must be >= 0, got " + std::to_string(f.jobs));
  require_nonnegative(f.duration_s, "--duration-s");
  const auto policies = resolve_policy_names(f.policies);
  const auto scenarios = load_selected(f);
  auto json_out = open_output(f.json, "--json");
  auto report_out = open_output(f.report, "--report");
  if (!f.record.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(f.record, ec);
    if (!std::filesystem::is_directory(f.record)) throw UsageError("--record: cannot make folder '" + f.record + "'");
  }
  const std::string command = echo_command(f, policies);
  std::cout << "$ " << command << "\n" << std::flush;

  const auto wall_start = std::chrono::steady_clock::now();
  // Without --seeds, each scenario at its own seed (one pass).
  const std::vector<std::optional<std::uint64_t>> seeds = [&] {
    std::vector<std::optional<std::uint64_t>> out;
    if (f.seeds.empty()) return std::vector<std::optional<std::uint64_t>>{std::nullopt};
    for (auto seed : parse_seed_list(f.seeds, "--seeds")) out.push_back(seed);
    return out;
  }();
  const int jobs = f.jobs > 0 ? f.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Preparing computes the oracle and the best static fleet: seconds each, so in parallel too.
  const auto prepared = in_parallel<sim::PreparedScenario>(scenarios.size() * seeds.size(), jobs, [&](std::size_t i) {
    sim::ScenarioOverrides overrides;
    if (f.duration_s > 0) overrides.duration_s = f.duration_s;
    overrides.seed = seeds[i / scenarios.size()];
    return sim::prepare_scenario(scenarios[i % scenarios.size()], overrides);
  });
  const auto results = run_all(prepared, policies, jobs, f.record);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  bool ok = true;
  const bool judged_on_default = std::find(policies.begin(), policies.end(), kDefaultPolicy) != policies.end();
  if (f.seeds.empty()) {
    std::cout << format_scenario_matrix(results) << "\n" << format_scenario_checks(results);
    ok = std::all_of(results.begin(), results.end(), [&](const sim::ScenarioResult& r) {
      return r.passed || (judged_on_default && r.policy != kDefaultPolicy);
    });
  } else {
    const auto seeded = sim::aggregate_seeds(results);
    std::cout << "over seeds " << f.seeds << ": a scenario passes only at every seed; checks as median (worst)\n"
              << format_seeded_matrix(seeded) << "\n" << format_seeded_checks(seeded);
    ok = std::all_of(seeded.begin(), seeded.end(), [&](const sim::SeededResult& r) {
      return r.passed() || (judged_on_default && r.policy != kDefaultPolicy);
    });
  }
  std::printf("suite: %zu scenario(s) x %zu policy(ies) x %zu seed(s) = %zu runs in %.2f s wall on %d thread(s)\n",
              scenarios.size(), policies.size(), seeds.size(), results.size(), wall_s, jobs);
  std::fflush(stdout);
  if (json_out) {
    if (f.seeds.empty()) {
      *json_out << sim::scenario_results_json(results).dump(2) << "\n";
    } else {
      std::vector<std::uint64_t> list;
      for (const auto& seed : seeds) list.push_back(*seed);
      nlohmann::json doc = sim::seeded_results_json(list, sim::aggregate_seeds(results));
      doc["per_seed"] = sim::scenario_results_json(results).at("scenarios");
      *json_out << doc.dump(2) << "\n";
    }
  }
  if (report_out) {
    std::vector<double> slo;
    for (const auto& r : results)
      for (const auto& p : prepared)
        if (p.scenario.name == r.scenario) {
          slo.push_back(p.scenario.slo.ttft_ms);
          break;
        }
    *report_out << sim::render_scenarios_html(results, slo, command);
  }
  return ok ? 0 : 1;
}

}  // namespace

void add_scenarios_command(CLI::App& app, int& exit_status) {
  auto f = std::make_shared<ScenariosFlags>();
  CLI::App* cmd = app.add_subcommand("scenarios", "the scenario suite: failures users report, run for each policy");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "list the scenarios");
  list->add_option("--dir", f->dir, "scenario folder (default: sim/scenarios)");
  list->callback([f] {
    std::cout << format_scenario_list(load_selected(*f));
  });
  CLI::App* run = cmd->add_subcommand("run", "run scenarios for policies; exit 0 when hybrid passes them all");
  run->add_option("--only", f->only, "scenario name, repeatable (default: every scenario)");
  run->add_option("--policy", f->policies, "policy name, repeatable; 'all' = every registered")
      ->capture_default_str();
  run->add_option("--json", f->json, "write the results JSON here");
  run->add_option("--report", f->report, "write the HTML report here");
  run->add_option("--dir", f->dir, "scenario folder (default: sim/scenarios)");
  run->add_option("--jobs", f->jobs, "runs in parallel (0: one per core)")->capture_default_str();
  run->add_option("--record", f->record,
                  "write every run's ticks (input and decisions, as simulate --record) to "
                  "DIR/<scenario>.<policy>.seed<N>.jsonl");
  run->add_option("--duration-s", f->duration_s, "override every scenario's duration (short runs)");
  run->add_option("--seeds", f->seeds,
                  "run every scenario at each seed of a list (1-8, 1,3,5); a scenario passes only at every seed");
  run->callback([f, &exit_status] { exit_status = run_scenarios(*f); });
}

}  // namespace capstan::cli
