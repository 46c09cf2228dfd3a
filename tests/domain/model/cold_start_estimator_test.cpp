#include "domain/model/cold_start_estimator.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

// The nearest-rank quantile of the samples, and of the prior while there are fewer than
// min_samples, from a sorted copy as the estimator has always defined it.
double nearest_rank(std::vector<double> v, double prior_s, const ColdStartConfig& c) {
  if (static_cast<int>(v.size()) < c.min_samples && prior_s > 0) v.push_back(prior_s);
  if (v.empty()) return prior_s;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(std::clamp(c.quantile, 0.0, 1.0) * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

}  // namespace

TEST_CASE("The cold start is the prior alone until a replica has started") {
  CHECK(cold_start_estimate_s({120, {}}, {}) == 120);
  CHECK(cold_start_estimate_s({0, {}}, {}) == 0);
}

TEST_CASE("Below min_samples the prior counts as one sample, then only the fleet's starts do") {
  const ColdStartConfig c;  // P90 of at least 3
  CHECK(cold_start_estimate_s({120, {30}}, c) == 120);      // {30, 120}: P90 is the larger
  CHECK(cold_start_estimate_s({120, {30, 40}}, c) == 120);  // {30, 40, 120}
  CHECK(cold_start_estimate_s({120, {30, 40, 50}}, c) == 50);
}

TEST_CASE("The estimate is the nearest-rank quantile of any number of samples, beyond a window's too") {
  for (std::size_t n : {1u, 2u, 5u, 20u, 31u, 32u, 33u, 100u}) {
    std::vector<double> samples;
    for (std::size_t i = 0; i < n; ++i) samples.push_back(static_cast<double>((i * 37) % 101) + 0.5);
    for (double q : {0.0, 0.5, 0.9, 1.0}) {
      ColdStartConfig c;
      c.quantile = q;
      INFO(n << " samples, quantile " << q);
      CHECK(cold_start_estimate_s({60, samples}, c) == nearest_rank(samples, 60, c));
    }
  }
}

TEST_CASE("Observing keeps the window's most recent samples and ignores invalid ones") {
  ColdStartConfig c;
  c.window = 3;
  ColdStartState s{60, {}};
  for (double x : {10.0, -1.0, std::nan(""), 20.0, 30.0, 40.0}) s = observe_cold_start(s, x, c);
  CHECK(s.samples_s == std::vector<double>{20, 30, 40});
}
