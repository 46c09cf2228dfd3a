#include "sim/latency_sketch.hpp"

#include <catch2/catch.hpp>

#include "sim/rng.hpp"
#include "sim/run_report.hpp"

using namespace capstan::sim;

TEST_CASE("Sketch percentiles are within 0.5 percent of the exact nearest-rank values") {
  Rng rng(7);
  LatencySketch sketch;
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i) {
    const double v = rng.lognormal_mean_cv(300, 2.0);
    values.push_back(v);
    sketch.add(v);
  }
  for (double q : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9}) {
    const double exact = percentile(values, q);
    INFO("q " << q << " exact " << exact << " sketch " << sketch.percentile(q));
    CHECK(std::abs(sketch.percentile(q) - exact) <= LatencySketch::kRelativeError * exact * 1.0001);
  }
  CHECK(sketch.percentile(100) == percentile(values, 100));
  CHECK(sketch.count() == 20000);
}

TEST_CASE("Zeros are counted exactly and an empty sketch reports 0") {
  LatencySketch sketch;
  CHECK(sketch.percentile(50) == 0);
  for (int i = 0; i < 60; ++i) sketch.add(0);
  for (int i = 0; i < 40; ++i) sketch.add(25);
  CHECK(sketch.percentile(50) == 0);
  CHECK(sketch.percentile(60) == 0);
  CHECK(sketch.percentile(61) == Approx(25).epsilon(LatencySketch::kRelativeError));
}

TEST_CASE("Merging two sketches gives the sketch of all their values") {
  LatencySketch a, b, all;
  for (int i = 1; i <= 1000; ++i) {
    (i % 3 == 0 ? a : b).add(i * 1.5);
    all.add(i * 1.5);
  }
  a.merge(b);
  for (double q : {5.0, 50.0, 95.0, 99.0}) CHECK(a.percentile(q) == all.percentile(q));
  CHECK(a.count() == all.count());
}

TEST_CASE("A sketch's storage does not grow with the number of values") {
  LatencySketch sketch;
  const std::size_t cells = sketch.bucket_count();
  Rng rng(1);
  for (int i = 0; i < 200000; ++i) sketch.add(rng.uniform() * 1e6);
  CHECK(sketch.bucket_count() == cells);
  CHECK(cells < 2500);
}
