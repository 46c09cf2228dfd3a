// Erlang-C: the M/M/c tail bound of Inferscale's queueing math (seed 004, chapter 5).
// A deployment of c replicas is an M/M/c queue with Poisson arrivals at lambda and
// exponential service at mu per replica. From it: the utilisation rho = lambda/(c mu),
// the probability a request waits at all, P(wait > t), and the fewest replicas that
// keep P(wait > SLA) under a violation budget.
//
// Evaluated without factorials through the Erlang-B recurrence
//   B(0) = 1,  B(k) = a B(k-1) / (k + a B(k-1)),  a = lambda / mu,
//   C(c)  = c B(c) / (c - a (1 - B(c))),
// which stays in [0, 1] for thousands of servers. rho >= 1 is unstable: P(wait) = 1.
#pragma once

#include "domain/core/result.hpp"

namespace capstan {

// Largest server count evaluated, and the default bound of required_servers()'s search.
inline constexpr int kMaxErlangServers = 1'000'000;

struct MmcQueue {
  double arrival_rate_rps = 0;  // lambda, >= 0
  double service_rate_rps = 0;  // mu per server, > 0
  int servers = 1;              // c, in [1, kMaxErlangServers]
};

struct ErlangTail {
  double rho = 0;            // lambda / (c mu); may exceed 1
  double p_wait = 0;         // P(wait > 0), Erlang C
  double p_wait_gt_sla = 0;  // P(wait > sla_s)
};

// Names the offending field: "arrival_rate_rps must be >= 0, got -1".
Result<ErlangTail> erlang_c(const MmcQueue& queue, double sla_s);

// Smallest c >= floor(lambda/mu) + 1 with P(wait > sla_s) < max_violation.
// kTargetUnreachable if none is found up to max_servers.
Result<int> required_servers(double arrival_rate_rps, double service_rate_rps, double sla_s,
                             double max_violation, int max_servers = kMaxErlangServers);

// Building blocks for scans over c that reuse the recurrence (warm-pool optimizer).
// offered_load = lambda / mu. Inputs are trusted here: validate first.
double erlang_b_next(double offered_load, int servers, double erlang_b_prev);
double erlang_b(double offered_load, int servers);
// P(wait > 0) at c servers given B(c); 1 when offered_load >= servers.
double erlang_c_from_b(double offered_load, int servers, double erlang_b);
// P(wait > wait_s) from P(wait > 0); 1 when unstable.
double erlang_tail(const MmcQueue& queue, double p_wait, double wait_s);
// The smallest stable server count, floor(lambda/mu) + 1.
int stable_min_servers(double offered_load);

}  // namespace capstan
