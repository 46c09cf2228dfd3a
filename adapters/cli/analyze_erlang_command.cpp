#include "adapters/cli/analyze_erlang_command.hpp"

#include <cmath>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "adapters/cli/flags.hpp"
#include "domain/model/erlang.hpp"

namespace capstan::cli {
namespace {

struct ErlangFlags {
  double arrival_rate = NAN, service_rate = NAN, servers = NAN, sla_seconds = NAN;
  double max_violation = NAN;
};

void require_given(const CLI::App& cmd, const char* flag) {
  if (cmd.count(flag) == 0) throw UsageError(std::string(flag) + " is required");
}

void run_erlang(const ErlangFlags& f, const CLI::App& cmd) {
  for (const char* flag : {"--arrival-rate", "--service-rate", "--sla-seconds"}) {
    require_given(cmd, flag);
  }
  const bool has_servers = cmd.count("--servers") > 0;
  const bool has_violation = cmd.count("--max-violation") > 0;
  if (has_servers == has_violation) {
    throw UsageError("give exactly one of --servers and --max-violation");
  }
  require_in(f.arrival_rate, 0, kMaxRate, "--arrival-rate");
  require_in(f.service_rate, 0, kMaxRate, "--service-rate", true);
  require_in(f.sla_seconds, 0, kMaxMs / 1000, "--sla-seconds");

  nlohmann::json out;
  if (has_servers) {
    require_at_least(f.servers, 1, "--servers");
    if (f.servers != std::floor(f.servers) || f.servers > kMaxErlangServers) {
      throw UsageError("--servers must be a whole number <= " + std::to_string(kMaxErlangServers) +
                       ", got " + fmt_num(f.servers));
    }
    const MmcQueue q{f.arrival_rate, f.service_rate, static_cast<int>(f.servers)};
    auto tail = erlang_c(q, f.sla_seconds);
    if (!tail) throw UsageError(tail.error().message);
    out = {{"p_wait", tail->p_wait}, {"p_wait_gt_sla", tail->p_wait_gt_sla}, {"rho", tail->rho}};
  } else {
    require_finite(f.max_violation, "--max-violation");
    if (!(f.max_violation > 0 && f.max_violation <= 1)) {
      throw UsageError("--max-violation must be in (0, 1], got " + fmt_num(f.max_violation));
    }
    auto k = required_servers(f.arrival_rate, f.service_rate, f.sla_seconds, f.max_violation);
    if (!k) throw UsageError(k.error().message);
    out = {{"required_servers", *k}};
  }
  std::cout << out.dump() << "\n";
}

}  // namespace

void add_analyze_erlang_command(CLI::App& analyze) {
  auto flags = std::make_shared<ErlangFlags>();
  CLI::App* cmd = analyze.add_subcommand(
      "erlang", "M/M/c Erlang C: P(wait), P(wait > SLA), or servers for a violation budget");
  cmd->add_option("--arrival-rate", flags->arrival_rate, "arrivals, req/s (>= 0)");
  cmd->add_option("--service-rate", flags->service_rate, "service rate per server, req/s (> 0)");
  cmd->add_option("--servers", flags->servers, "number of servers (>= 1)");
  cmd->add_option("--sla-seconds", flags->sla_seconds, "queueing-delay bound, s (>= 0)");
  cmd->add_option("--max-violation", flags->max_violation,
                  "largest acceptable P(wait > SLA), in (0, 1]; prints required_servers");
  cmd->callback([flags, cmd] { run_erlang(*flags, *cmd); });
}

}  // namespace capstan::cli
