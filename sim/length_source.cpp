// Token-length sources for generated arrivals; see length_source.hpp.
#include "sim/length_source.hpp"

#include <algorithm>
#include <cmath>

namespace capstan::sim {

namespace {

class Fixed : public LengthSource {
 public:
  explicit Fixed(TokenLengths l) : l_(l) {}
  TokenLengths draw(Rng&) const override { return l_; }

 private:
  TokenLengths l_;
};

class LogNormal : public LengthSource {
 public:
  LogNormal(double mi, double ci, double mo, double co, double max_in)
      : mi_(mi), ci_(ci), mo_(mo), co_(co), max_in_(max_in) {}
  TokenLengths draw(Rng& rng) const override {
    double in = rng.lognormal_mean_cv(mi_, ci_);
    if (max_in_ > 0) in = std::min(in, max_in_);
    const auto out = static_cast<int>(std::lround(rng.lognormal_mean_cv(mo_, co_)));
    return {std::max(1, static_cast<int>(std::lround(in))), std::max(1, out)};
  }

 private:
  double mi_, ci_, mo_, co_, max_in_;
};

class Empirical : public LengthSource {
 public:
  explicit Empirical(std::vector<TokenLengths> s) : s_(std::move(s)) {}
  TokenLengths draw(Rng& rng) const override {
    const auto i = static_cast<std::size_t>(rng.uniform() * static_cast<double>(s_.size()));
    return s_[std::min(i, s_.size() - 1)];
  }

 private:
  std::vector<TokenLengths> s_;
};

}  // namespace

std::shared_ptr<LengthSource> fixed_lengths(int input_tokens, int output_tokens) {
  return std::make_shared<Fixed>(TokenLengths{input_tokens, output_tokens});
}

std::shared_ptr<LengthSource> lognormal_lengths(double mean_input, double cv_input, double mean_output,
                                                double cv_output, double max_input) {
  return std::make_shared<LogNormal>(mean_input, cv_input, mean_output, cv_output, max_input);
}

std::shared_ptr<LengthSource> empirical_lengths(std::vector<TokenLengths> samples) {
  if (samples.empty()) return fixed_lengths(1, 1);
  return std::make_shared<Empirical>(std::move(samples));
}

Result<std::shared_ptr<LengthSource>> lengths_from_trace(TraceSource& trace, std::size_t max_samples) {
  std::vector<TokenLengths> samples;
  while (samples.size() < max_samples) {
    auto r = trace.next();
    if (!r.ok()) return r.error();
    if (!r.value()) break;
    samples.push_back({r.value()->input_tokens, r.value()->output_tokens});
  }
  if (samples.empty()) return invalid_argument("length source trace has no requests");
  return empirical_lengths(std::move(samples));
}

}  // namespace capstan::sim
