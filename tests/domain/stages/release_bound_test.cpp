#include "domain/stages/release_bound.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

CapacitySignal fleet(int replicas, double per_replica, double spare) {
  CapacitySignal s;
  s.supply = replicas * per_replica;
  s.spare = spare;
  s.variants.push_back({"h100", per_replica, 12, replicas, 0, 0, 100, 4});
  return s;
}

}  // namespace

TEST_CASE("one tick releases at most half of a large fleet's capacity") {
  // 96 replicas of 1 req/s with 72 req/s spare: 48 may go this tick, not 72 (the
  // issue's 96 -> 24 in one tick).
  CHECK(bounded_release(fleet(96, 1, 72), false) == Approx(48));
}

TEST_CASE("a small fleet may still release one replica a tick") {
  CHECK(bounded_release(fleet(2, 3, 3), false) == Approx(3));
}

TEST_CASE("an idle model releases all its spare capacity at once") {
  CHECK(bounded_release(fleet(96, 1, 95), true) == Approx(95));
}

TEST_CASE("the bound never adds to what is spare") {
  CHECK(bounded_release(fleet(96, 1, 5), false) == Approx(5));
}
