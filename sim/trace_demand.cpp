// Demand curve and length sample of a trace; see trace_demand.hpp.
#include "sim/trace_demand.hpp"

#include <cmath>

namespace capstan::sim {

Result<TraceDemand> measure_trace_demand(TraceSource& trace, double bucket_s, std::size_t max_samples,
                                         std::uint64_t seed) {
  if (!(bucket_s > 0)) return invalid_argument("bucket_s must be > 0");
  TraceDemand d;
  d.bucket_s = bucket_s;
  Rng rng(seed);
  for (;;) {
    auto next = trace.next();
    if (!next.ok()) return next.error();
    if (!next.value()) break;
    const Request& r = *next.value();
    const auto bucket = static_cast<std::size_t>(std::max(0.0, std::floor(r.arrival_s / bucket_s)));
    if (bucket >= d.arrivals_per_bucket.size()) d.arrivals_per_bucket.resize(bucket + 1, 0);
    ++d.arrivals_per_bucket[bucket];
    ++d.requests;
    d.last_arrival_s = std::max(d.last_arrival_s, r.arrival_s);
    const TokenLengths lengths{r.input_tokens, r.output_tokens};
    if (d.length_sample.size() < max_samples) {
      d.length_sample.push_back(lengths);
    } else if (max_samples > 0) {
      const auto j = static_cast<std::size_t>(rng.uniform() * static_cast<double>(d.requests));
      if (j < max_samples) d.length_sample[j] = lengths;
    }
  }
  return d;
}

}  // namespace capstan::sim
