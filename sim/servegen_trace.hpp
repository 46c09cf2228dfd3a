// Arrivals generated from Alibaba ServeGen per-client rate windows (alibaba/ServeGen,
// Apache-2.0; Xiang et al., arXiv 2505.09999): header-less CSV rows
// `window_start_s,rate_rps,cv,Gamma|Weibull|<empty>,shape,scale`, one file per client.
// Within each active window, inter-arrival gaps are drawn from the named distribution
// and rescaled so that their mean is 1/rate (as ServeGen does); idle windows send
// nothing. Several client files are merged into one stream in arrival order. Token
// lengths come from a LengthSource.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/length_source.hpp"
#include "sim/line_reader.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

class ServeGenTrace : public TraceSource {
 public:
  ServeGenTrace(std::vector<std::string> client_paths, std::shared_ptr<LengthSource> lengths,
                std::uint64_t seed, double window_s = 600);
  Result<std::optional<Request>> next() override;

 private:
  struct Client {
    std::unique_ptr<LineReader> reader;
    Rng rng;
    double window_start_s = 0;
    double window_end_s = 0;
    double last_window_start_s = -1;
    bool gamma = true;
    double shape = 1, scale = 1, factor = 1;
    double next_s = 0;
    bool done = false;
  };
  // Moves `c` to its next arrival; false at the end of its file.
  Result<bool> advance(Client& c);
  Result<bool> next_window(Client& c);

  std::vector<Client> clients_;
  std::shared_ptr<LengthSource> lengths_;
  Rng length_rng_;
  double window_s_;
  bool started_ = false;
};

}  // namespace capstan::sim
