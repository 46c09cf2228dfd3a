// One streaming pass over a trace for the oracle: arrivals per fixed time bucket (the
// demand curve, bounded by duration / bucket_s), and a uniform reservoir sample of
// the requests' (input, output) token lengths (the trace's own length mix, bounded
// by max_samples; Vitter's algorithm R with a seeded Rng).
#pragma once

#include <cstdint>
#include <vector>

#include "domain/core/result.hpp"
#include "sim/length_source.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct TraceDemand {
  double bucket_s = 60;
  std::vector<long long> arrivals_per_bucket;  // bucket k covers [k, k + 1) x bucket_s
  long long requests = 0;
  double last_arrival_s = 0;
  std::vector<TokenLengths> length_sample;
};

// Errors when the trace is malformed (the message names the file and line).
Result<TraceDemand> measure_trace_demand(TraceSource& trace, double bucket_s = 60,
                                         std::size_t max_samples = 20000, std::uint64_t seed = 1);

}  // namespace capstan::sim
