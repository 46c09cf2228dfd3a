// ServeGen rate-window arrival generator; see servegen_trace.hpp.
#include "sim/servegen_trace.hpp"

#include <cmath>

namespace capstan::sim {

ServeGenTrace::ServeGenTrace(std::vector<std::string> client_paths,
                             std::shared_ptr<LengthSource> lengths, std::uint64_t seed,
                             double window_s)
    : lengths_(std::move(lengths)), length_rng_(derive_seed(seed, 0)), window_s_(window_s) {
  for (std::size_t i = 0; i < client_paths.size(); ++i) {
    Client c;
    c.reader = std::make_unique<LineReader>(client_paths[i]);
    c.rng = Rng(derive_seed(seed, i + 1));
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
    if (!parse_double(f[0], start) || start < 0) return in.error("window start must be a number >= 0, got '" + f[0] + "'");
    if (start <= c.last_window_start_s) return in.error("window start does not increase (" + f[0] + ")");
    if (!parse_double(f[1], rate) || rate < 0) return in.error("rate must be a number >= 0, got '" + f[1] + "'");
    if (!parse_double(f[2], cv) || cv < 0) return in.error("cv must be a number >= 0, got '" + f[2] + "'");
    if (f[3] != "" && f[3] != "Gamma" && f[3] != "Weibull")
      return in.error("distribution must be Gamma, Weibull or empty, got '" + f[3] + "'");
    if (!parse_double(f[4], shape) || !parse_double(f[5], scale))
      return in.error("shape and scale must be numbers");
    c.last_window_start_s = start;
    if (rate <= 0 || f[3].empty()) continue;  // idle window
    if (shape <= 0 || scale <= 0) return in.error("shape and scale must be > 0 for an active window");
    c.gamma = f[3] == "Gamma";
    c.shape = shape;
    c.scale = scale;
    const double mean = c.gamma ? shape * scale : scale * std::tgamma(1.0 + 1.0 / shape);
    c.factor = (1.0 / rate) / mean;
    c.window_start_s = start;
    c.window_end_s = start + window_s_;
    c.next_s = start;
    return true;
  }
}

Result<bool> ServeGenTrace::advance(Client& c) {
  for (;;) {
    if (c.next_s < c.window_end_s) {
      const double gap = c.gamma ? c.rng.gamma(c.shape, c.scale) : c.rng.weibull(c.shape, c.scale);
      c.next_s += gap * c.factor;
      if (c.next_s < c.window_end_s) return true;
    }
    auto more = next_window(c);
    if (!more.ok()) return more.error();
    if (!more.value()) return false;
  }
}

Result<std::optional<Request>> ServeGenTrace::next() {
  if (!started_) {
    started_ = true;
    for (auto& c : clients_) {
      if (!c.reader->is_open()) return invalid_argument(c.reader->path() + ": cannot open file");
      auto ok = advance(c);
      if (!ok.ok()) return ok.error();
      c.done = !ok.value();
    }
  }
  Client* best = nullptr;
  for (auto& c : clients_)
    if (!c.done && (best == nullptr || c.next_s < best->next_s)) best = &c;
  if (best == nullptr) return std::optional<Request>{};
  Request r;
  r.arrival_s = best->next_s;
  const auto l = lengths_->draw(length_rng_);
  r.input_tokens = l.input_tokens;
  r.output_tokens = l.output_tokens;
  auto ok = advance(*best);
  if (!ok.ok()) return ok.error();
  best->done = !ok.value();
  return std::optional<Request>{std::move(r)};
}

}  // namespace capstan::sim
