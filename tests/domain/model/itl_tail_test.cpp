#include "domain/model/itl_tail.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace capstan {
namespace {

double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// A window of n requests whose ITLs follow the spread exactly, binned at vLLM's
// request-ITL bounds (ms).
WindowHistogram binned(double n, double d1, double model_itl, double location, double scale) {
  WindowHistogram h;
  for (double b : {10.0, 25.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0}) {
    h.upper_bounds_ms.push_back(b);
    const double below = b > d1 ? n * phi((std::log((b - d1) / (model_itl - d1)) - location) / scale) : 0.0;
    h.cumulative.push_back(std::round(below));
  }
  h.count = n;
  h.sum_ms = n * model_itl;
  return h;
}

PodMetrics serving(const std::string& name, double rate, WindowHistogram h) {
  PodMetrics p;
  p.pod = name;
  p.arrival_rate_rps = rate;
  p.seconds_since_start = 3600;
  p.request_itl = std::move(h);
  return p;
}

}  // namespace

TEST_CASE("itl_tail_points places each bound above d1 against the model's mean load part") {
  WindowHistogram h;
  h.upper_bounds_ms = {25, 50, 100};
  h.cumulative = {0, 40, 90};
  h.count = 100;
  const auto points = itl_tail_points(h, 30, 70);
  REQUIRE(points.size() == 2);
  CHECK(points[0].position == Approx(std::log(20.0 / 40.0)));
  CHECK(points[0].below == 40);
  CHECK(points[1].position == Approx(std::log(70.0 / 40.0)));
  CHECK(points[1].total == 100);
  CHECK(itl_tail_points(h, 30, 30.5).empty());  // no load part to measure against
  CHECK(itl_tail_points(WindowHistogram{}, 30, 70).empty());
}

TEST_CASE("fit_itl_spread recovers the location and scale of binned requests") {
  // Windows at several rates, so the bounds fall at different positions.
  std::vector<std::vector<ItlTailPoint>> windows;
  for (double model_itl : {45.0, 55.0, 62.0, 70.0, 80.0}) {
    windows.push_back(itl_tail_points(binned(20000, 29, model_itl, 0.12, 0.21), 29, model_itl));
  }
  const auto fit = fit_itl_spread(windows);
  REQUIRE(fit);
  CHECK(fit->location == Approx(0.12).margin(0.01));
  CHECK(fit->scale == Approx(0.21).margin(0.01));
  CHECK(fit->requests == 100000);
}

TEST_CASE("fit_itl_spread fits nothing from too few requests or bounds no request straddles") {
  std::vector<std::vector<ItlTailPoint>> few{itl_tail_points(binned(150, 29, 60, 0, 0.2), 29, 60)};
  CHECK_FALSE(fit_itl_spread(few));
  // Every request between two bounds: the spread is not measured.
  WindowHistogram h;
  h.upper_bounds_ms = {50, 75};
  h.cumulative = {0, 1000};
  h.count = 1000;
  CHECK_FALSE(fit_itl_spread({itl_tail_points(h, 29, 60)}));
  CHECK_FALSE(fit_itl_spread({}));
}

TEST_CASE("a refit started from the last fit reaches the optimum a fit from scratch does") {
  // Windows arriving one by one at drifting rates, as hybrid adds them each tick.
  ItlEvidence evidence;
  std::vector<std::vector<ItlTailPoint>> kept;
  int refits = 0;
  for (int t = 0; t < 40; ++t) {
    const double model_itl = 50 + 15 * std::sin(t / 4.0);
    const double d1 = 29 + 0.1 * std::cos(t / 3.0);  // the learned model moves too
    const WindowHistogram h = binned(400 + 37 * (t % 5), d1, model_itl, 0.1 + 0.002 * t, 0.2);
    add_itl_window(evidence, h, d1, model_itl, 20);
    kept.push_back(itl_tail_points(h, d1, model_itl));
    if (kept.size() > 20) kept.erase(kept.begin());
    REQUIRE(evidence.windows.size() == kept.size());
    const auto warm = refit_itl_spread(evidence);
    const auto cold = fit_itl_spread(kept);
    REQUIRE(warm.has_value() == cold.has_value());
    if (!cold) continue;
    ++refits;
    CHECK(warm->location == Approx(cold->location).epsilon(1e-9).margin(1e-12));
    CHECK(warm->scale == Approx(cold->scale).epsilon(1e-9));
    CHECK(warm->requests == cold->requests);
    CHECK(evidence.start.has_value());
  }
  CHECK(refits > 30);
}

TEST_CASE("ITL evidence keeps its last windows and starts over when the bounds change") {
  ItlEvidence evidence;
  for (int t = 0; t < 5; ++t) add_itl_window(evidence, binned(300, 29, 60, 0, 0.2), 29, 60, 3);
  CHECK(evidence.windows.size() == 3);
  CHECK(*evidence.windows.back().points == itl_tail_points(binned(300, 29, 60, 0, 0.2), 29, 60));
  add_itl_window(evidence, WindowHistogram{}, 29, 60, 3);  // no requests: no window
  CHECK(evidence.windows.size() == 3);
  WindowHistogram other = binned(300, 29, 60, 0, 0.2);
  other.upper_bounds_ms.back() = 400;
  add_itl_window(evidence, other, 29, 60, 3);
  CHECK(evidence.windows.size() == 1);
  CHECK(evidence.upper_bounds_ms == other.upper_bounds_ms);
}

TEST_CASE("a full ITL evidence drops its oldest window for the newest without growing its room") {
  ItlEvidence evidence;
  for (int t = 0; t < 3; ++t) add_itl_window(evidence, binned(300, 29, 60, 0, 0.2), 29, 60 + t, 3);
  const std::size_t room = evidence.windows.capacity();
  for (int t = 3; t < 8; ++t) add_itl_window(evidence, binned(300, 29, 60, 0, 0.2), 29, 60 + t, 3);
  REQUIRE(evidence.windows.size() == 3);
  CHECK(evidence.windows[0].model_itl_ms == 65);
  CHECK(evidence.windows[1].model_itl_ms == 66);
  CHECK(evidence.windows[2].model_itl_ms == 67);
  CHECK(evidence.windows.capacity() == room);
  ItlEvidence none;
  add_itl_window(none, binned(300, 29, 60, 0, 0.2), 29, 60, 0);
  CHECK(none.windows.empty());
}

TEST_CASE("a copy of ITL evidence shares its windows' points, and adding to the copy leaves the original as it was") {
  ItlEvidence evidence;
  for (int t = 0; t < 3; ++t) add_itl_window(evidence, binned(300, 29, 60, 0, 0.2), 29, 60 + t, 3);
  ItlEvidence copy = evidence;
  add_itl_window(copy, binned(300, 29, 60, 0, 0.2), 29, 70, 3);
  REQUIRE(evidence.windows.size() == 3);
  CHECK(evidence.windows[0].model_itl_ms == 60);
  CHECK(copy.windows[0].points.get() == evidence.windows[1].points.get());
  CHECK(copy.windows[1].points.get() == evidence.windows[2].points.get());
  CHECK(*copy.windows[2].points == itl_tail_points(binned(300, 29, 60, 0, 0.2), 29, 70));
  // A window without its points (as a snapshot restores it) fits as one that has them.
  ItlEvidence restored = copy;
  for (ItlWindow& w : restored.windows) w.points.reset();
  const auto fitted = refit_itl_spread(copy);
  const auto derived = refit_itl_spread(restored);
  REQUIRE(fitted.has_value());
  REQUIRE(derived.has_value());
  CHECK(*fitted == *derived);
  CHECK(*restored.windows[2].points == *copy.windows[2].points);
}

TEST_CASE("the mean ITL sized against keeps the tail probability under the target") {
  CHECK(normal_upper_quantile(0.01) == Approx(2.3263).margin(1e-4));
  CHECK(normal_upper_quantile(0.5) == Approx(0).margin(1e-9));
  const ItlSpread spread{0.1, 0.2, 1000};
  const double sized = itl_sizing_target_ms(spread, 100, 29, 0.01);
  // A request's ITL at that mean is over 100 ms with probability 0.01.
  const double z = (std::log((100 - 29) / (sized - 29)) - spread.location) / spread.scale;
  CHECK(1 - phi(z) == Approx(0.01).margin(1e-6));
  CHECK(sized < 100);
  // A spread whose whole tail stays under the mean asks for more than the target.
  CHECK(itl_sizing_target_ms({-1.0, 0.1, 1000}, 100, 29, 0.01) > 100);
}

TEST_CASE("the upper quantile, stopped once its bisection cannot move, is the 80-step bisection's bits") {
  const auto eighty_steps = [](double p) {
    double lo = -40, hi = 40;
    for (int i = 0; i < 80; ++i) {
      const double mid = 0.5 * (lo + hi);
      (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  for (double p : {1e-300, 1e-12, 1e-4, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1 - 1e-12}) {
    INFO("p = " << p);
    const double z = normal_upper_quantile(p);
    CHECK(std::bit_cast<std::uint64_t>(z) == std::bit_cast<std::uint64_t>(eighty_steps(p)));
  }
}

TEST_CASE("served_request_itl sums the fresh serving pods and refuses a queue") {
  VariantState v;
  v.current_replicas = 3;
  const WindowHistogram h = binned(300, 29, 60, 0, 0.2);
  v.pods = {serving("a", 6, h), serving("b", 8, h), serving("c", 7, h)};
  v.pods[2].seconds_since_start = 30;  // warming up: left out
  auto served = served_request_itl(v, 60, 120);
  REQUIRE(served);
  CHECK(served->rate_per_replica_rps == Approx(7));
  CHECK(served->requests.count == 600);
  CHECK(served->requests.cumulative.back() == 2 * h.cumulative.back());

  v.pods[1].sample_age_s = 600;  // stale: left out
  served = served_request_itl(v, 60, 120);
  REQUIRE(served);
  CHECK(served->requests.count == 300);

  v.pods[0].queue_length = 5;
  CHECK_FALSE(served_request_itl(v, 60, 120));
}

TEST_CASE("ITL tail points survive a JSON round trip and bad ones name the shape") {
  const ItlTailPoint p{-0.25, 40, 100};
  CHECK(nlohmann::json(p).get<ItlTailPoint>() == p);
  CHECK_THROWS_WITH(nlohmann::json::parse(R"({"x":1})").get<ItlTailPoint>(),
                    Catch::Contains("[position, below, total]"));
}

}  // namespace capstan
