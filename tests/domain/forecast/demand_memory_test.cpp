#include "domain/forecast/demand_memory.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

TEST_CASE("The peak kept for a scale-down counts past ticks by what arrived, not by what was forecast then") {
  DemandHistory recent;
  // A trend-following forecast still predicts traffic after it stopped...
  CHECK(peak_demand(recent, 0, 20, 20, true, 300) == 20);
  CHECK(peak_demand(recent, 30, 0, 6, true, 300) == 20);
  // ...but once the 20 req/s tick is older than the cooldown, only what arrived since
  // (nothing) and this tick's demand count, not the 6 req/s forecast made at t = 30.
  CHECK(peak_demand(recent, 330, 0, 0, true, 300) == 0);
}

TEST_CASE("This tick's demand counts when it is above every rate observed") {
  DemandHistory recent;
  CHECK(peak_demand(recent, 0, 5, 5, true, 300) == 5);
  CHECK(peak_demand(recent, 30, 6, 14, true, 300) == 14);
  // The forecast of 14 is not remembered: at the next tick only observed rates are.
  CHECK(peak_demand(recent, 60, 6, 7, true, 300) == 7);
}

TEST_CASE("A tick whose rate is no evidence is not remembered, yet its demand still counts") {
  DemandHistory recent;
  CHECK(peak_demand(recent, 0, 4, 4, true, 300) == 4);
  CHECK(peak_demand(recent, 30, 50, 9, false, 300) == 9);  // a metrics gap's rate says nothing
  CHECK(peak_demand(recent, 60, 4, 4, true, 300) == 4);
  CHECK(recent.size() == 2);
}
