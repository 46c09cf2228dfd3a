// ServeGen rate-window arrival generator; see servegen_trace.hpp.
#include "sim/servegen_trace.hpp"

#include <cmath>

#include "domain/core/format.hpp"

namespace capstan::sim {

ServeGenTrace::ServeGenTrace(std::vector<std::string> client_paths,
                             std::shared_ptr<LengthSource> lengths, std::uint64_t seed,
                             double window_s, double from_s)
    : lengths_(std::move(lengths)), window_s_(window_s), from_s_(from_s) {
  for (std::size_t i = 0; i < client_paths.size(); ++i) {
    Client c;
    c.reader = std::make_unique<LineReader>(client_paths[i]);
    c.seed = derive_seed(seed, i + 1);
    clients_.push_back(std::move(c));
  }
}

Result<bool> ServeGenTrace::next_window(Client& c) {
  auto& in = *c.reader;
  for (;;) {
    auto line = in.next();
    if (!line) return false;
    const auto f = split_fields(*line);
    if (f.size() != 6)
      return in.error("expected 6 fields window_start,rate,cv,distribution,shape,scale, got " +
                      std::to_string(f.size()));
    double start = 0, rate = 0, cv = 0, shape = 0, scale = 0;
    if (!parse_double(f[0], start) || start < 0 || start > kMaxArrivalS)
      return in.error("window start must be a finite number in 0.." + fmt_num(kMaxArrivalS) + ", got '" + f[0] + "'");
    if (start <= c.last_window_start_s) return in.error("window start does not increase (" + f[0] + ")");
    if (!parse_double(f[1], rate) || rate < 0 || rate > kMaxRateRps)
      return in.error("rate must be a finite number in 0.." + fmt_num(kMaxRateRps) + ", got '" + f[1] + "'");
    if (!parse_double(f[2], cv) || cv < 0) return in.error("cv must be a finite number >= 0, got '" + f[2] + "'");
    if (f[3] != "" && f[3] != "Gamma" && f[3] != "Weibull")
      return in.error("distribution must be Gamma, Weibull or empty, got '" + f[3] + "'");
    if (!parse_double(f[4], shape) || !parse_double(f[5], scale))
      return in.error("shape and scale must be finite numbers, got '" + f[4] + "' and '" + f[5] + "'");
    c.last_window_start_s = start;
    if (rate <= 0 || f[3].empty()) continue;  // idle window
    if (shape < kMinShape || scale <= 0)
      return in.error("an active window needs shape >= " + fmt_num(kMinShape) + " and scale > 0, got " +
                      fmt_num(shape) + " and " + fmt_num(scale));
    if (start + window_s_ <= from_s_) continue;  // before the window asked for: nothing drawn
    c.gamma = f[3] == "Gamma";
    c.shape = shape;
    c.scale = scale;
    const double mean = c.gamma ? shape * scale : scale * std::tgamma(1.0 + 1.0 / shape);
    c.factor = (1.0 / rate) / mean;
    if (!std::isfinite(mean) || !std::isfinite(c.factor) || c.factor <= 0)
      return in.error(f[3] + " shape " + f[4] + " and scale " + f[5] + " give a mean gap of " + fmt_num(mean) +
                      ", which cannot be rescaled to rate " + f[1]);
    // The window's own stream: its arrivals are the same whatever came before.
    c.rng = Rng(derive_seed(c.seed, static_cast<std::uint64_t>(std::llround(start * 1000))));
    c.window_end_s = start + window_s_;
    c.next_s = start;
    return true;
  }
}

Result<bool> ServeGenTrace::advance(Client& c) {
  for (;;) {
    while (c.next_s < c.window_end_s) {
      const double gap = c.gamma ? c.rng.gamma(c.shape, c.scale) : c.rng.weibull(c.shape, c.scale);
      c.next_s += gap * c.factor;
      if (c.next_s >= c.window_end_s) break;
      c.next_lengths = lengths_->draw(c.rng);
      if (c.next_s >= from_s_) return true;
    }
    auto more = next_window(c);
    if (!more.ok()) return more.error();
    if (!more.value()) return false;
  }
}

Result<std::optional<Request>> ServeGenTrace::next() {
  if (!started_) {
    started_ = true;
    for (std::size_t i = 0; i < clients_.size(); ++i) {
      auto& c = clients_[i];
      if (!c.reader->is_open()) return invalid_argument(c.reader->path() + ": cannot open file");
      auto ok = advance(c);
      if (!ok.ok()) return ok.error();
      if (ok.value()) pending_.emplace(c.next_s, i);
    }
  }
  if (pending_.empty()) return std::optional<Request>{};
  const std::size_t i = pending_.top().second;
  pending_.pop();
  Client& c = clients_[i];
  Request r;
  r.arrival_s = c.next_s;
  r.input_tokens = c.next_lengths.input_tokens;
  r.output_tokens = c.next_lengths.output_tokens;
  auto ok = advance(c);
  if (!ok.ok()) return ok.error();
  if (ok.value()) pending_.emplace(c.next_s, i);
  return std::optional<Request>{std::move(r)};
}

}  // namespace capstan::sim
