// Arrivals generated from Alibaba ServeGen per-client rate windows (alibaba/ServeGen,
// Apache-2.0; Xiang et al., arXiv 2505.09999): header-less CSV rows
// `window_start_s,rate_rps,cv,Gamma|Weibull|<empty>,shape,scale`, one file per client.
// Within each active window, inter-arrival gaps are drawn from the named distribution
// and rescaled so that their mean is 1/rate (as ServeGen does); idle windows send
// nothing. Several client files are merged into one stream in arrival order (ties:
// the client listed first). Token lengths come from a LengthSource.
//
// Each client's window draws from its own random stream, derived from the seed, the
// client's index and the window's start, so a window's arrivals do not depend on the
// windows before it: `from_s` seeks there by reading the earlier rows without drawing
// their arrivals, and the requests at or after from_s are exactly those of a run from
// 0 (the cost of a --window does not grow with its start).
#pragma once

#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "sim/length_source.hpp"
#include "sim/line_reader.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

class ServeGenTrace : public TraceSource {
 public:
  ServeGenTrace(std::vector<std::string> client_paths, std::shared_ptr<LengthSource> lengths,
                std::uint64_t seed, double window_s = 600, double from_s = 0);
  Result<std::optional<Request>> next() override;

  // Bounds of a row, beyond which it is an error (a rate this high would take hours to
  // generate; a shape this small gives gaps that underflow to 0).
  static constexpr double kMaxRateRps = 1e6;
  static constexpr double kMinShape = 1e-3;

 private:
  struct Client {
    std::unique_ptr<LineReader> reader;
    std::uint64_t seed = 0;
    Rng rng;
    double window_end_s = 0;
    double last_window_start_s = -1;
    bool gamma = true;
    double shape = 1, scale = 1, factor = 1;
    double next_s = 0;
    TokenLengths next_lengths;
  };
  // Moves `c` to its next arrival at or after from_s_; false at the end of its file.
  Result<bool> advance(Client& c);
  Result<bool> next_window(Client& c);

  std::vector<Client> clients_;
  std::shared_ptr<LengthSource> lengths_;
  double window_s_;
  double from_s_;
  bool started_ = false;
  // Clients with an arrival pending, earliest first (then lowest index).
  using Pending = std::pair<double, std::size_t>;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
};

}  // namespace capstan::sim
