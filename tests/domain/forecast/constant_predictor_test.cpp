#include "domain/forecast/constant_predictor.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

TEST_CASE("The constant predictor forecasts the last value at every horizon") {
  ConstantState s;
  CHECK(forecast(s, 3) == 0.0);
  s = observe(observe(s, 4.0), 7.5);
  CHECK(s.count == 2);
  CHECK(forecast(s, 0) == 7.5);
  CHECK(forecast(s, 100) == 7.5);
  s = observe(s, NAN);
  CHECK(s.count == 2);
  CHECK(forecast(s, 1) == 7.5);
}
