#include "domain/model/erlang.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

std::optional<Error> check_rates(double arrival_rate_rps, double service_rate_rps) {
  if (!std::isfinite(arrival_rate_rps) || arrival_rate_rps < 0) {
    return invalid_argument("arrival_rate_rps must be a finite number >= 0, got " +
                            fmt_num(arrival_rate_rps));
  }
  if (!std::isfinite(service_rate_rps) || service_rate_rps <= 0) {
    return invalid_argument("service_rate_rps must be a finite number > 0, got " +
                            fmt_num(service_rate_rps));
  }
  return std::nullopt;
}

std::optional<Error> check_sla(double sla_s) {
  if (!std::isfinite(sla_s) || sla_s < 0) {
    return invalid_argument("sla_s must be a finite number >= 0, got " + fmt_num(sla_s));
  }
  return std::nullopt;
}

}  // namespace

double erlang_b_next(double offered_load, int servers, double erlang_b_prev) {
  const double ab = offered_load * erlang_b_prev;
  return ab / (static_cast<double>(servers) + ab);
}

double erlang_b(double offered_load, int servers) {
  double b = 1.0;
  for (int k = 1; k <= servers; ++k) b = erlang_b_next(offered_load, k, b);
  return b;
}

double erlang_c_from_b(double offered_load, int servers, double erlang_b) {
  const double c = static_cast<double>(servers);
  if (offered_load / c >= 1.0) return 1.0;
  return c * erlang_b / (c - offered_load * (1.0 - erlang_b));
}

double erlang_tail(const MmcQueue& queue, double p_wait, double wait_s) {
  const double drain_rps = queue.servers * queue.service_rate_rps - queue.arrival_rate_rps;
  if (drain_rps <= 0 || p_wait >= 1.0) return 1.0;
  return p_wait * std::exp(-drain_rps * wait_s);
}

int stable_min_servers(double offered_load) {
  constexpr int kMax = std::numeric_limits<int>::max();
  if (!(offered_load < static_cast<double>(kMax - 1))) return kMax;
  return static_cast<int>(std::floor(offered_load)) + 1;
}

Result<ErlangTail> erlang_c(const MmcQueue& queue, double sla_s) {
  if (auto err = check_rates(queue.arrival_rate_rps, queue.service_rate_rps)) return *err;
  if (queue.servers < 1 || queue.servers > kMaxErlangServers) {
    return invalid_argument("servers must be in [1, " + std::to_string(kMaxErlangServers) +
                            "], got " + std::to_string(queue.servers));
  }
  if (auto err = check_sla(sla_s)) return *err;

  const double a = queue.arrival_rate_rps / queue.service_rate_rps;
  ErlangTail out;
  out.rho = a / queue.servers;
  if (out.rho >= 1.0) {
    out.p_wait = 1.0;
    out.p_wait_gt_sla = 1.0;
    return out;
  }
  out.p_wait = erlang_c_from_b(a, queue.servers, erlang_b(a, queue.servers));
  out.p_wait_gt_sla = erlang_tail(queue, out.p_wait, sla_s);
  return out;
}

Result<int> required_servers(double arrival_rate_rps, double service_rate_rps, double sla_s,
                             double max_violation, int max_servers) {
  if (auto err = check_rates(arrival_rate_rps, service_rate_rps)) return *err;
  if (auto err = check_sla(sla_s)) return *err;
  if (!(max_violation > 0 && max_violation <= 1)) {
    return invalid_argument("max_violation must be in (0, 1], got " + fmt_num(max_violation));
  }
  const double a = arrival_rate_rps / service_rate_rps;
  if (a >= static_cast<double>(max_servers)) {
    return Error{ErrorCode::kTargetUnreachable,
                 "offered load " + fmt_num(a) + " needs more than max_servers " +
                     std::to_string(max_servers)};
  }
  const int start = stable_min_servers(a);
  double b = erlang_b(a, start);
  for (long long next = start; next <= max_servers; ++next) {  // wide: max_servers may be INT_MAX
    const int c = static_cast<int>(next);
    if (c > start) b = erlang_b_next(a, c, b);
    const MmcQueue q{arrival_rate_rps, service_rate_rps, c};
    const double tail = erlang_tail(q, erlang_c_from_b(a, c, b), sla_s);
    if (tail < max_violation) return c;
  }
  return Error{ErrorCode::kTargetUnreachable,
               "no server count up to " + std::to_string(max_servers) +
                   " keeps P(wait > " + fmt_num(sla_s) + " s) below " + fmt_num(max_violation)};
}

}  // namespace capstan
