#include "domain/model/cold_start_estimator.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

namespace capstan {

ColdStartState observe_cold_start(ColdStartState s, double sample_s, const ColdStartConfig& c) {
  if (!std::isfinite(sample_s) || sample_s < 0) return s;
  s.samples_s.push_back(sample_s);
  const auto keep = static_cast<size_t>(std::max(1, c.window));
  if (s.samples_s.size() > keep) s.samples_s.erase(s.samples_s.begin(), s.samples_s.end() - keep);
  return s;
}

double cold_start_estimate_s(const ColdStartState& s, const ColdStartConfig& c) {
  const bool with_prior = static_cast<int>(s.samples_s.size()) < c.min_samples && s.prior_s > 0;
  const std::size_t n = s.samples_s.size() + (with_prior ? 1 : 0);
  if (n == 0) return s.prior_s;
  // Sorted in place on the stack when they fit (a window of samples does): the estimate
  // is read by every model's plan every tick, and a heap copy each time was one of a
  // tick's most frequent allocations.
  std::array<double, 32> local;
  std::vector<double> heap;
  double* v = local.data();
  if (n > local.size()) {
    heap.resize(n);
    v = heap.data();
  }
  std::copy(s.samples_s.begin(), s.samples_s.end(), v);
  if (with_prior) v[n - 1] = s.prior_s;
  std::sort(v, v + n);
  // Nearest-rank quantile: the smallest sample with at least q of the samples at or below.
  const double q = std::clamp(c.quantile, 0.0, 1.0);
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
  return v[std::clamp<size_t>(rank, 1, n) - 1];
}

void to_json(nlohmann::json& j, const ColdStartState& s) {
  j = {{"prior_s", s.prior_s}, {"samples_s", s.samples_s}};
}

void from_json(const nlohmann::json& j, ColdStartState& s) {
  j.at("prior_s").get_to(s.prior_s);
  j.at("samples_s").get_to(s.samples_s);
}

}  // namespace capstan
