// The sustainable rate of one replica of a variant at an SLO: the highest Poisson
// arrival rate at which at least `attainment_target` of the requests (drawn from a
// given token-length mix) complete within both targets, measured by simulating that
// one warm replica. The attainment of the same mix one request at a time (a0) is
// measured first: when even an unloaded replica misses the target (some prompts miss
// a TTFT target alone: a 7,400-token prefill takes 2 s on an A100), the rate is 0
// without further probes; a0 is kept to explain such results.
//
// Search: from 1 req/s, double (or halve) to bracket the rate, then bisect. Every
// probe uses the same seed, so probes at different rates see the same arrival
// pattern compressed in time and the same lengths (common random numbers):
// attainment then falls with the rate as a rule, and since a looser SLO meets at least
// as many requests at every probed rate, the search never turns back earlier for it,
// so the rate is monotone in the SLO whenever attainment is monotone in the rate.
// Requests still unfinished when a probe gives up count as misses.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/fleet_config.hpp"
#include "sim/length_source.hpp"
#include "sim/outcome_stats.hpp"

namespace capstan::sim {

// The attainment an SLO may promise (scenario slo.attainment, simulate --slo-attainment).
inline constexpr double kMinAttainmentTarget = 0.5, kMaxAttainmentTarget = 0.9999;

struct SustainableRateOptions {
  double attainment_target = 0.95;
  double probe_requests = 2000;  // a probe lasts probe_requests / rate seconds...
  double min_probe_s = 300;      // ...within [min_probe_s, max_probe_s]
  double max_probe_s = 3600;
  int bisection_steps = 8;       // after bracketing within a factor 2: ~0.4 % precision
  double min_rate_rps = 1.0 / 1024;
  double max_rate_rps = 4096;
  std::uint64_t seed = 1;
  // A variant of a prefill/decode split is probed beside this many warm replicas of the
  // other role, so that they never limit it: one replica of either role of the shipped
  // profiles serves 17-28 req/s, so 8 carry well past twice any one replica's rate.
  int counterpart_replicas = 8;
};

struct RateProbe {
  double rate_rps = 0;
  double attainment = 0;
  long long requests = 0;
};

struct SustainableRate {
  double rate_rps = 0;  // 0: the SLO is not met even at min_rate_rps
  double unloaded_attainment = 0;  // a0: one request at a time
  std::vector<RateProbe> probes;
};

// SLO attainment of one warm replica of `variant` under Poisson arrivals at rate_rps.
RateProbe probe_rate(const VariantConfig& variant, double client_timeout_s,
                     const std::shared_ptr<LengthSource>& lengths, const SloTargets& slo,
                     double rate_rps, const SustainableRateOptions& options);

SustainableRate sustainable_rate(const VariantConfig& variant, double client_timeout_s,
                                 const std::shared_ptr<LengthSource>& lengths, const SloTargets& slo,
                                 const SustainableRateOptions& options = {});

// The sustainable rate of one replica of fleet.variants[variant]: as above for a role-both
// variant; a variant of a prefill/decode split is probed beside
// options.counterpart_replicas replicas of the other role's first variant, over the
// fleet's KV transfer, so the figure is its own role's (0 when the fleet has no variant
// of the other role: half a split serves nothing).
SustainableRate sustainable_rate(const FleetConfig& fleet, std::size_t variant,
                                 const std::shared_ptr<LengthSource>& lengths, const SloTargets& slo,
                                 const SustainableRateOptions& options = {});

}  // namespace capstan::sim
