// capstan's own trace format: CSV `arrival_s,input_tokens,output_tokens`, with an
// optional header row of exactly those names. Arrivals must not decrease.
#pragma once

#include <string>

#include "sim/line_reader.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

class NativeTrace : public TraceSource {
 public:
  explicit NativeTrace(std::string path);
  Result<std::optional<Request>> next() override;

 private:
  LineReader reader_;
  double last_arrival_s_ = 0;
};

}  // namespace capstan::sim
