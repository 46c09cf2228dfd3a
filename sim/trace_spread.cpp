// Spreading of same-timestamp requests and detection of quantised traces; see trace_spread.hpp.
#include "sim/trace_spread.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "domain/core/format.hpp"

namespace capstan::sim {
namespace {

// Requests closer than this are "at the same time" for detection (a trace's own
// sub-millisecond spreading, as the Mooncake reader's, does not hide its buckets).
constexpr double kSameTimeS = 1e-3;
constexpr std::size_t kMinRequests = 100;

class Spread : public TraceSource {
 public:
  Spread(std::unique_ptr<TraceSource> inner, double spread_s) : inner_(std::move(inner)), spread_s_(spread_s) {}

  Result<std::optional<Request>> next() override {
    if (ready_.empty()) {
      if (!peek_) {
        auto r = inner_->next();
        if (!r.ok() || !r.value()) return r;
        peek_ = std::move(r.value());
      }
      const double t = peek_->arrival_s;
      std::vector<Request> group{std::move(*peek_)};
      peek_.reset();
      for (;;) {
        auto r = inner_->next();
        if (!r.ok()) return r.error();
        if (!r.value()) break;
        if (r.value()->arrival_s != t) {
          peek_ = std::move(r.value());
          break;
        }
        group.push_back(std::move(*r.value()));
      }
      const double span = peek_ ? std::min(spread_s_, peek_->arrival_s - t) : spread_s_;
      const double k = static_cast<double>(group.size());
      for (std::size_t i = 0; i < group.size(); ++i) {
        group[i].arrival_s = t + static_cast<double>(i) / k * span;
        ready_.push_back(std::move(group[i]));
      }
    }
    Request out = std::move(ready_.front());
    ready_.pop_front();
    return std::optional<Request>{std::move(out)};
  }

 private:
  std::unique_ptr<TraceSource> inner_;
  double spread_s_;
  std::optional<Request> peek_;
  std::deque<Request> ready_;
};

}  // namespace

std::unique_ptr<TraceSource> spread_buckets(std::unique_ptr<TraceSource> source, double spread_s) {
  return std::make_unique<Spread>(std::move(source), spread_s);
}

std::optional<Quantised> detect_quantised(const std::vector<Request>& first) {
  if (first.size() < kMinRequests) return std::nullopt;
  std::size_t shared = 0;
  std::vector<double> gaps;
  double group_start = first.front().arrival_s;
  for (std::size_t i = 1; i < first.size(); ++i) {
    const double t = first[i].arrival_s;
    if (t - first[i - 1].arrival_s < kSameTimeS) {
      ++shared;
    } else {
      gaps.push_back(t - group_start);
      group_start = t;
    }
  }
  Quantised q;
  q.shared_share = static_cast<double>(shared) / static_cast<double>(first.size() - 1);
  if (q.shared_share < 0.5) return std::nullopt;
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
    q.bucket_s = gaps[gaps.size() / 2];
  }
  return q;
}

std::string quantised_warning(const std::string& path, std::size_t requests, const Quantised& q) {
  const std::string bucket = fmt_num(q.bucket_s > 0 ? q.bucket_s : 1);
  return path + ": " + std::to_string(static_cast<int>(std::lround(q.shared_share * 100))) + "% of the first " +
         std::to_string(requests) + " requests arrive at the same time as the one before (timestamps in buckets of "
         "about " + bucket + " s); they replay as bursts: --spread-buckets " + bucket + " spreads them";
}

}  // namespace capstan::sim
