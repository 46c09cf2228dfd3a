// Parser of the native arrival_s,input_tokens,output_tokens CSV; see native_trace.hpp.
#include "sim/native_trace.hpp"

#include "domain/core/format.hpp"

namespace capstan::sim {

NativeTrace::NativeTrace(std::string path) : reader_(std::move(path)) {}

Result<std::optional<Request>> NativeTrace::next() {
  if (!reader_.is_open()) return invalid_argument(reader_.path() + ": cannot open file");
  auto line = reader_.next();
  if (line && reader_.line_number() == 1 && line->rfind("arrival_s", 0) == 0) line = reader_.next();
  if (!line) return std::optional<Request>{};
  const auto f = split_fields(*line);
  if (f.size() != 3) return reader_.error("expected 3 fields arrival_s,input_tokens,output_tokens, got " +
                                          std::to_string(f.size()));
  Request r;
  long long in = 0, out = 0;
  const std::string max_tokens = std::to_string(kMaxRequestTokens);
  if (!parse_double(f[0], r.arrival_s) || r.arrival_s < 0 || r.arrival_s > kMaxArrivalS)
    return reader_.error("arrival_s must be a finite number in 0.." + fmt_num(kMaxArrivalS) + ", got '" + f[0] + "'");
  if (!parse_int(f[1], in) || in < 1 || in > kMaxRequestTokens)
    return reader_.error("input_tokens must be an integer in 1.." + max_tokens + ", got '" + f[1] + "'");
  if (!parse_int(f[2], out) || out < 1 || out > kMaxRequestTokens)
    return reader_.error("output_tokens must be an integer in 1.." + max_tokens + ", got '" + f[2] + "'");
  if (r.arrival_s < last_arrival_s_) return reader_.error("arrival_s goes back in time (" + f[0] + ")");
  last_arrival_s_ = r.arrival_s;
  r.input_tokens = static_cast<int>(in);
  r.output_tokens = static_cast<int>(out);
  return std::optional<Request>{std::move(r)};
}

}  // namespace capstan::sim
