// Mooncake JSON-lines trace parser; see mooncake_trace.hpp.
#include "sim/mooncake_trace.hpp"

#include <nlohmann/json.hpp>

namespace capstan::sim {

MooncakeTrace::MooncakeTrace(std::string path, double bucket_ms)
    : reader_(std::move(path)), bucket_ms_(bucket_ms) {}

Result<std::optional<std::pair<long long, Request>>> MooncakeTrace::read_row() {
  using Row = std::optional<std::pair<long long, Request>>;
  auto line = reader_.next();
  if (!line) return Row{};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*line);
  } catch (const nlohmann::json::exception& e) {
    return reader_.error(std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) return reader_.error("expected a JSON object");
  auto integer = [&](const char* key, long long min, long long max, long long& out) -> bool {
    if (!j.contains(key) || !j[key].is_number_integer()) return false;
    if (j[key].is_number_unsigned() && j[key].get<std::uint64_t>() > static_cast<std::uint64_t>(max)) return false;
    out = j[key].get<long long>();
    return out >= min && out <= max;
  };
  const auto max_stamp = static_cast<long long>(kMaxArrivalS * 1000);
  const std::string max_tokens = std::to_string(kMaxRequestTokens);
  long long stamp = 0, in = 0, out = 0;
  if (!integer("timestamp", 0, max_stamp, stamp))
    return reader_.error("timestamp must be an integer in 0.." + std::to_string(max_stamp) + " (ms)");
  if (!integer("input_length", 1, kMaxRequestTokens, in))
    return reader_.error("input_length must be an integer in 1.." + max_tokens);
  if (!integer("output_length", 1, kMaxRequestTokens, out))
    return reader_.error("output_length must be an integer in 1.." + max_tokens);
  if (stamp < last_stamp_) return reader_.error("timestamp goes back in time (" + std::to_string(stamp) + ")");
  last_stamp_ = stamp;
  Request r;
  r.input_tokens = static_cast<int>(in);
  r.output_tokens = static_cast<int>(out);
  if (j.contains("hash_ids")) {
    if (!j["hash_ids"].is_array()) return reader_.error("hash_ids must be a list of integers");
    for (const auto& h : j["hash_ids"]) {
      if (!h.is_number_integer()) return reader_.error("hash_ids must be a list of integers");
      r.hash_ids.push_back(h.get<std::uint64_t>());
    }
  }
  return Row{std::make_pair(stamp, std::move(r))};
}

Result<std::optional<Request>> MooncakeTrace::next() {
  if (!reader_.is_open()) return invalid_argument(reader_.path() + ": cannot open file");
  if (ready_.empty()) {
    if (!peek_) {
      auto row = read_row();
      if (!row.ok()) return row.error();
      peek_ = std::move(row.value());
      if (!peek_) return std::optional<Request>{};
    }
    const long long stamp = peek_->first;
    std::vector<Request> group{std::move(peek_->second)};
    peek_.reset();
    for (;;) {
      auto row = read_row();
      if (!row.ok()) return row.error();
      if (!row.value()) break;
      if (row.value()->first != stamp) {
        peek_ = std::move(row.value());
        break;
      }
      group.push_back(std::move(row.value()->second));
    }
    const double k = static_cast<double>(group.size());
    for (std::size_t i = 0; i < group.size(); ++i) {
      group[i].arrival_s = (static_cast<double>(stamp) + static_cast<double>(i) / k * bucket_ms_) / 1000.0;
      ready_.push_back(std::move(group[i]));
    }
  }
  Request r = std::move(ready_.front());
  ready_.pop_front();
  return std::optional<Request>{std::move(r)};
}

}  // namespace capstan::sim
