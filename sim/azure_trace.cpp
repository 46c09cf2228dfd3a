// Azure LLM inference trace parser; see azure_trace.hpp.
#include "sim/azure_trace.hpp"

#include <cctype>

#include "domain/core/format.hpp"

namespace capstan::sim {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool digits(const std::string& s, std::size_t pos, std::size_t n, long long& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

bool parse_azure_timestamp(const std::string& t, double& seconds) {
  long long y, mo, d, h, mi, s;
  if (t.size() < 19 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' || t[16] != ':')
    return false;
  if (!digits(t, 0, 4, y) || !digits(t, 5, 2, mo) || !digits(t, 8, 2, d) || !digits(t, 11, 2, h) ||
      !digits(t, 14, 2, mi) || !digits(t, 17, 2, s))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return false;
  double frac = 0;
  if (t.size() > 19) {
    if (t[19] != '.' || t.size() == 20) return false;
    double scale = 0.1;
    for (std::size_t i = 20; i < t.size(); ++i, scale /= 10) {
      if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
      frac += (t[i] - '0') * scale;
    }
  }
  const long long days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  seconds = static_cast<double>(days * 86400 + h * 3600 + mi * 60 + s) + frac;
  return true;
}

AzureTrace::AzureTrace(std::string path) : reader_(std::move(path)) {}

Result<std::optional<Request>> AzureTrace::next() {
  if (!reader_.is_open()) return invalid_argument(reader_.path() + ": cannot open file");
  auto line = reader_.next();
  if (line && reader_.line_number() == 1) {
    if (line->rfind("TIMESTAMP", 0) != 0)
      return reader_.error("expected the header TIMESTAMP,ContextTokens,GeneratedTokens");
    line = reader_.next();
  }
  if (!line) return std::optional<Request>{};
  const auto f = split_fields(*line);
  if (f.size() != 3) return reader_.error("expected 3 fields, got " + std::to_string(f.size()));
  double t = 0;
  long long in = 0, out = 0;
  if (!parse_azure_timestamp(f[0], t)) return reader_.error("bad TIMESTAMP '" + f[0] + "'");
  const std::string max_tokens = std::to_string(kMaxRequestTokens);
  if (!parse_int(f[1], in) || in < 0 || in > kMaxRequestTokens)
    return reader_.error("ContextTokens must be an integer in 0.." + max_tokens + ", got '" + f[1] + "'");
  if (!parse_int(f[2], out) || out < 0 || out > kMaxRequestTokens)
    return reader_.error("GeneratedTokens must be an integer in 0.." + max_tokens + ", got '" + f[2] + "'");
  if (!first_s_) first_s_ = t;
  const double arrival = t - *first_s_;
  if (arrival < last_s_) return reader_.error("TIMESTAMP goes back in time (" + f[0] + ")");
  if (arrival > kMaxArrivalS)
    return reader_.error("TIMESTAMP is more than " + fmt_num(kMaxArrivalS) + " s after the first row (" + f[0] + ")");
  last_s_ = arrival;
  Request r;
  r.arrival_s = arrival;
  r.input_tokens = static_cast<int>(in);
  r.output_tokens = static_cast<int>(out);
  return std::optional<Request>{std::move(r)};
}

}  // namespace capstan::sim
