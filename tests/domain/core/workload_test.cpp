#include "domain/core/workload.hpp"

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

using namespace capstan;

namespace {
PodMetrics pod(double rate, double ttft, double itl, double in, double out, double age_s = 600) {
  PodMetrics p;
  p.arrival_rate_rps = rate;
  p.avg_ttft_ms = ttft;
  p.avg_itl_ms = itl;
  p.avg_input_tokens = in;
  p.avg_output_tokens = out;
  p.seconds_since_start = age_s;
  return p;
}
}  // namespace

TEST_CASE("Aggregation weights token lengths and latencies by arrival rate") {
  const std::vector<PodMetrics> pods{pod(1, 100, 10, 1000, 100), pod(3, 200, 20, 2000, 300)};
  const VariantWorkload w = aggregate(pods);
  CHECK(w.total_arrival_rps == 4);
  CHECK(w.avg_input_tokens == Approx((1 * 1000 + 3 * 2000) / 4.0));
  CHECK(w.avg_output_tokens == Approx((1 * 100 + 3 * 300) / 4.0));
  CHECK(w.avg_ttft_ms == Approx((100 + 600) / 4.0));
  CHECK(w.avg_itl_ms == Approx((10 + 60) / 4.0));
  CHECK(w.busy_pods == 2);
}

TEST_CASE("Only pods with arrivals count") {
  const std::vector<PodMetrics> pods{pod(0, 900, 90, 9000, 900), pod(2, 100, 10, 1000, 100),
                                     pod(std::nan(""), 1, 1, 1, 1), pod(-1, 1, 1, 1, 1)};
  const VariantWorkload w = aggregate(pods);
  CHECK(w.busy_pods == 1);
  CHECK(w.total_arrival_rps == 2);
  CHECK(w.avg_input_tokens == 1000);
}

TEST_CASE("A variant with no busy pod has no traffic") {
  const std::vector<PodMetrics> pods{pod(0, 100, 10, 1000, 100)};
  CHECK_FALSE(aggregate(pods).has_traffic());
  CHECK_FALSE(aggregate({}).has_traffic());
}

TEST_CASE("Tuning leaves out pods younger than the transient delay") {
  const std::vector<PodMetrics> pods{pod(1, 500, 50, 1000, 100, 30), pod(1, 100, 10, 1000, 100, 121)};
  const VariantWorkload w = aggregate_for_tuning(pods, 120);
  CHECK(w.busy_pods == 1);
  CHECK(w.avg_ttft_ms == 100);
  CHECK(aggregate(pods).busy_pods == 2);
}
