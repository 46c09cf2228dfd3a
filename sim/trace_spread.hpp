// Traces whose timestamps are quantised (Mooncake's are 3-second buckets: most
// requests share their timestamp with others) replay as bursts of simultaneous
// arrivals. spread_buckets() spreads each group of requests sharing a timestamp evenly
// over the next spread_s seconds (request i of k at t + i/k x spread_s), never past the
// next group's timestamp, so arrivals stay in order; deterministic, no randomness.
// detect_quantised() looks at a trace's first requests to warn when it is quantised.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace_source.hpp"

namespace capstan::sim {

std::unique_ptr<TraceSource> spread_buckets(std::unique_ptr<TraceSource> source, double spread_s);

struct Quantised {
  double shared_share = 0;  // share of requests arriving at the same time as the one before
  double bucket_s = 0;      // the median gap between distinct timestamps
};

// A warning-worthy finding when at least half of `first` (>= 100 requests, in arrival
// order) share a timestamp; nullopt otherwise.
std::optional<Quantised> detect_quantised(const std::vector<Request>& first);

// "trace.jsonl: 90% of the first 1000 requests share their timestamp with another
// (buckets of about 3 s); they arrive as bursts: --spread-buckets 3 spreads them".
std::string quantised_warning(const std::string& path, std::size_t requests, const Quantised& q);

}  // namespace capstan::sim
