// A stream of requests in arrival order. Every trace format and generator implements
// this; a source reads its file incrementally and never loads it whole. A malformed
// row ends the stream with an Error naming the file and the line.
#pragma once

#include <optional>

#include "domain/core/result.hpp"
#include "sim/request.hpp"

namespace capstan::sim {

class TraceSource {
 public:
  virtual ~TraceSource() = default;
  // The next request (arrival_s non-decreasing), nullopt at the end, or a parse error.
  virtual Result<std::optional<Request>> next() = 0;
};

}  // namespace capstan::sim
