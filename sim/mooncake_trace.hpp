// Parser of Mooncake's JSON-lines traces (kvcache-ai/Mooncake FAST'25 release,
// Apache-2.0): {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}.
// Timestamps are quantised (to 1 ms by default); requests sharing one are spread
// uniformly over the bucket, the i-th of k at timestamp + i/k bucket, so a burst of
// equal stamps does not arrive as one instant.
#pragma once

#include <deque>
#include <string>

#include "sim/line_reader.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

class MooncakeTrace : public TraceSource {
 public:
  explicit MooncakeTrace(std::string path, double bucket_ms = 1.0);
  Result<std::optional<Request>> next() override;

 private:
  Result<std::optional<std::pair<long long, Request>>> read_row();
  LineReader reader_;
  double bucket_ms_;
  std::deque<Request> ready_;                          // spread group, ready to emit
  std::optional<std::pair<long long, Request>> peek_;  // first row of the next group
  long long last_stamp_ = -1;
};

}  // namespace capstan::sim
