#include "sim/count_search.hpp"

#include <catch2/catch.hpp>

using namespace capstan::sim;

namespace {

// A made-up fleet: variant i contributes rate[i] per replica; meets when the sum covers demand.
struct Counting {
  std::vector<double> rate;
  double demand;
  int probes = 0;
  MeetsProbe probe() {
    return [this](const std::vector<int>& c) {
      ++probes;
      double sum = 0;
      for (std::size_t i = 0; i < c.size(); ++i) sum += c[i] * rate[i];
      return sum >= demand;
    };
  }
};

}  // namespace

TEST_CASE("The count search finds the fewest replicas of one variant by galloping and bisection") {
  Counting f{{1.0}, 37};
  const auto r = cheapest_counts({{0, 100, 4, 1}}, f.probe(), {1});
  CHECK(r.met);
  CHECK(r.counts == std::vector<int>{37});
  CHECK(r.alone[0] == 37);
  CHECK(f.probes <= 14);  // gallop 1, 2, 3, 5, 9, 17, 33, 65, then bisect (33, 65]
  // From a good hint it takes a couple of probes.
  Counting g{{1.0}, 37};
  CHECK(cheapest_counts({{0, 100, 4, 1}}, g.probe(), {37}).counts == std::vector<int>{37});
  CHECK(g.probes <= 3);
}

TEST_CASE("The count search prefers the cheaper weight, then the tie weight, and finds a cheaper mix") {
  // Same GPUs per replica; the second is faster: it alone wins.
  Counting a{{2, 5}, 9};
  CHECK(cheapest_counts({{0, 10, 4, 8}, {0, 10, 4, 12}}, a.probe()).counts == std::vector<int>{0, 2});
  // Demand 6: 3 slow (12 GPUs) or 2 fast (8) or 1 + 1 (8 GPUs, cheaper in the tie weight): the mix.
  Counting b{{2, 5}, 6};
  CHECK(cheapest_counts({{0, 10, 4, 8}, {0, 10, 4, 12}}, b.probe()).counts == std::vector<int>{1, 1});
  // Minimum replicas are kept.
  Counting c{{2, 5}, 1};
  CHECK(cheapest_counts({{1, 10, 4, 8}, {0, 10, 4, 12}}, c.probe()).counts == std::vector<int>{1, 0});
}

TEST_CASE("The count search gives every variant at max, not met, when nothing meets") {
  Counting f{{1, 1}, 100};
  const auto r = cheapest_counts({{0, 3, 4, 1}, {0, 2, 4, 1}}, f.probe());
  CHECK_FALSE(r.met);
  CHECK(r.counts == std::vector<int>{3, 2});
  CHECK_FALSE(r.alone[0].has_value());
}
