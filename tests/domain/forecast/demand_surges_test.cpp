#include "domain/forecast/demand_surges.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

using namespace capstan;

namespace {

constexpr double kTick = 30, kHorizon = 270, kKeep = 300, kZ = 2;

// Runs `rate(t)` tick by tick from t = 0 to until_s as hybrid does: peak_demand records
// the rate with the retention surges need, then surge_hold. Returns the last hold.
struct Run {
  DemandHistory recent;
  DemandSurges surges;
  std::vector<double> holds, peaks;

  double until(double until_s, const std::function<double(double)>& rate, double from_s = 0) {
    double hold = 0;
    for (double t = from_s; t <= until_s; t += kTick) {
      peaks.push_back(peak_demand(recent, t, rate(t), rate(t), true, kKeep, surge_history_s(kKeep, kTick)));
      hold = surge_hold(surges, recent, t, kTick, kHorizon, kKeep, kZ);
      holds.push_back(hold);
    }
    return hold;
  }

  // The hold never asked for more than the cooldown's own peak.
  bool never_above_peak() const {
    for (size_t i = 0; i < holds.size(); ++i) {
      if (holds[i] > peaks[i]) return false;
    }
    return true;
  }
};

// 60 s at 24 req/s every 420 s over a base of 4 (sim/scenarios/open/burst-recur.yaml).
double bursts(double t) { return static_cast<long>(t) % 420 >= 360 ? 24 : 4; }

}  // namespace

TEST_CASE("Bursts that recur before a released replica could be back hold the burst's rate between them") {
  Run run;
  run.until(3000, bursts);
  // From the first burst (t = 360 s) on, the hold stays between bursts: its capacity is
  // not released a cooldown after one burst only to be bought again for the next.
  std::vector<double> later(run.holds.begin() + 12, run.holds.end());
  CHECK(std::all_of(later.begin(), later.end(), [](double h) { return h == 24; }));
  CHECK_FALSE(run.never_above_peak());  // between bursts it holds more than the cooldown's peak
  // Each burst is one surge however many ticks saw it, and only recent ones are kept.
  CHECK(run.surges.size() <= 2);
  CHECK(run.surges.back().from_rps == 4);
  CHECK(run.surges.back().recurs);
}

TEST_CASE("A single burst holds its rate for a cooldown plus a horizon after it, then nothing") {
  Run run;
  const auto once = [](double t) { return t >= 600 && t < 660 ? 24.0 : 4.0; };
  // The rise is the tick at 600 s (at 630 the rate is what the cooldown already held).
  run.until(600 + kKeep + kHorizon, once);
  CHECK(run.holds.back() == 24);
  CHECK(run.peaks.back() == 4);  // the cooldown alone would have released it
  REQUIRE_FALSE(run.surges.empty());
  CHECK_FALSE(run.surges.back().recurs);  // the first traffic, long before, was forgotten
  CHECK(run.until(600 + kKeep + kHorizon + kTick, once, 600 + kKeep + kHorizon + kTick) == 0);
}

TEST_CASE("When the bursts stop, the hold is released after a cooldown and a horizon") {
  Run run;
  run.until(3000, bursts);
  REQUIRE(run.holds.back() == 24);
  const double last_hold = run.until(3000 + kKeep + 2 * kHorizon + 2 * kTick, [](double) { return 4.0; }, 3030);
  CHECK(last_hold == 0);
}

TEST_CASE("A step or a ramp to a new level holds no more than the level it leaves") {
  Run step;
  step.until(3600, [](double t) { return t < 1800 ? 6.0 : 30.0; });
  CHECK(step.never_above_peak());
  CHECK(step.surges.empty());  // the rise to 30 ended long ago
  Run ramp;  // 6 -> 30 req/s over 120 s (sim/scenarios/slow-start.yaml)
  ramp.until(3600, [](double t) { return t < 1800 ? 6.0 : t >= 1920 ? 30.0 : 6 + 24 * (t - 1800) / 120; });
  CHECK(ramp.never_above_peak());
}

TEST_CASE("Steps ten minutes apart hold no more than the levels they leave") {
  // sim/scenarios/open/step.yaml: each rise is remembered a cooldown plus a horizon, and
  // each level lasts longer than that.
  const auto steps = [](double t) {
    const double levels[] = {6, 12, 8, 24, 10, 15, 6};
    return levels[std::min(6, static_cast<int>(t / 600))];
  };
  Run run;
  run.until(4200, steps);
  CHECK(run.never_above_peak());
}

TEST_CASE("A rise within the arrivals' noise is no surge") {
  Run run;
  // 30 req/s with rises of one standard deviation of a 30 s count (1 req/s) every 4 minutes.
  run.until(3600, [](double t) { return static_cast<long>(t) % 240 == 0 ? 31.0 : 30.0; });
  CHECK(run.surges.empty());  // the first traffic, a rise from nothing, is long forgotten
  CHECK(run.holds.back() == 0);
}

TEST_CASE("The history peak_demand keeps for surges does not widen its peak") {
  DemandHistory recent;
  const double retain = surge_history_s(kKeep, kTick);
  CHECK(peak_demand(recent, 0, 20, 20, true, kKeep, retain) == 20);
  CHECK(peak_demand(recent, 330, 4, 4, true, kKeep, retain) == 4);  // 20 is past the cooldown...
  CHECK(recent.size() == 2);                                       // ...but still remembered
  CHECK(peak_demand(recent, 330 + retain, 4, 4, true, kKeep, retain) == 4);
  CHECK(recent.front().first == 330);  // forgotten once older than the retention
}
