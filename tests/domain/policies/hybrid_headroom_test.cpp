#include "domain/policies/hybrid_headroom.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

const SloTargets kSlo{2000, 100};

// A model of one variant whose `pods` ready pods each finished `finished` requests in
// the window, `late` of them with their own mean ITL over 100 ms.
ModelTickInput model(int pods, double finished, double late, double sample_age_s = 0) {
  ModelTickInput m;
  VariantTickInput& v = m.variants.emplace_back();
  v.state.spec.name = "h100";
  v.state.current_replicas = pods;
  for (int i = 0; i < pods; ++i) {
    PodMetrics p;
    p.pod = "p" + std::to_string(i);
    p.sample_age_s = sample_age_s;
    p.request_itl.upper_bounds_ms = {50, 100, 200};
    p.request_itl.cumulative = {finished - late - 1, finished - late, finished};
    p.request_itl.count = finished;
    v.state.pods.push_back(p);
  }
  return m;
}

// A model's headroom ticking every 30 s.
struct Ticking {
  MissHeadroom headroom;
  double now_s = 0;

  // `ticks` ticks, each counting `count`; the headroom after them.
  double run(int ticks, const MissCount& count) {
    for (int i = 0; i < ticks; ++i) headroom = next_headroom(headroom, count, 0.01, now_s += 30, 30);
    return headroom.extra;
  }
};

constexpr int kHour = 120;  // ticks
const MissCount kLate{1000, 30};  // 3 % late against a 1 % budget: a burn of 3
const MissCount kClean{1000, 0};

// Two hours of kLate, two clean, then `late_hours` of kLate again.
Ticking recurring(int late_hours) {
  Ticking t;
  t.run(2 * kHour, kLate);
  t.run(2 * kHour, kClean);
  t.run(late_hours * kHour, kLate);
  return t;
}

}  // namespace

TEST_CASE("the misses counted are the requests whose own ITL was over the target, over the ready pods") {
  ModelTickInput m = model(3, 100, 4);
  m.variants[0].state.pods[2].ready = false;  // a pod not ready says nothing
  const MissCount c = count_itl_misses(m, kSlo, 60);
  CHECK(c.requests == Approx(200));
  CHECK(c.missed == Approx(8));
}

TEST_CASE("a stale sample, a pod with no histogram or no bound at the target is not counted") {
  CHECK(count_itl_misses(model(2, 100, 4, 120), kSlo, 60).requests == 0);
  ModelTickInput bare = model(1, 100, 4);
  bare.variants[0].state.pods[0].request_itl = {};
  CHECK(count_itl_misses(bare, kSlo, 60).requests == 0);
  CHECK(count_itl_misses(model(1, 100, 4), SloTargets{2000, 40}, 60).requests == 0);
  CHECK(count_itl_misses(model(1, 100, 4), SloTargets{2000, 0}, 60).requests == 0);
}

TEST_CASE("traffic that meets its SLO within the budget keeps no headroom beyond the margin") {
  // 0.4 % late against a 1 % budget: a burn of 0.4, under the target of 0.5.
  Ticking within;
  CHECK(within.run(24 * kHour, {1000, 4}) == 0);
  CHECK(within.run(24 * kHour, kClean) == 0);
}

TEST_CASE("a first episode that spends the budget raises nothing: a ramp seen once is not a step that recurs") {
  Ticking once;
  CHECK(once.run(4 * kHour, kLate) == 0);
  CHECK(once.headroom.spent_until_s == 0);
  CHECK(once.run(kHour, kClean) == 0);
  CHECK(once.headroom.spent_until_s > 0);  // the episode ended: the next one raises
}

TEST_CASE("misses that spend the budget again within a day raise the headroom, by hours, up to its bound") {
  // The burn climbs back to 3 over half an hour; then 0.1 per hour per unit over 0.5.
  const double hour = recurring(1).headroom.extra;
  CHECK(hour > 0.1);
  CHECK(hour < 0.25);
  CHECK(recurring(4).headroom.extra == Approx(kMaxExtraHeadroom));
  // Not a day after the last episode ended.
  Ticking late;
  late.run(2 * kHour, kLate);
  late.run(25 * kHour, kClean);
  CHECK(late.run(4 * kHour, kLate) == 0);
}

TEST_CASE("headroom raised by misses is given back slowly once the budget is no longer spent") {
  Ticking t = recurring(4);
  const double high = t.headroom.extra;
  // Without a miss the burn decays over half an hour (raising the headroom still while
  // over 0.5), then the headroom is given back at 0.0075 an hour: 0.33 four hours on,
  // none two days on.
  const double later = t.run(4 * kHour, kClean);
  CHECK(later < high);
  CHECK(later > 0.3);
  CHECK(t.run(20 * kHour, kClean) > 0.15);
  CHECK(t.run(26 * kHour, kClean) == 0);
}

TEST_CASE("one tick of a few requests, all late, moves the headroom by the capped burn only") {
  MissHeadroom armed;
  armed.spent_until_s = 1000;
  const MissHeadroom one = next_headroom(armed, {2, 2}, 0.01, 1030, 30);
  CHECK(one.extra == Approx(kHeadroomRaise * (kMaxBurn - kBurnTarget) * 30 / 3600));
}

TEST_CASE("a tick with nothing served holds the headroom") {
  const MissHeadroom high = recurring(4).headroom;
  MissHeadroom idle = high;
  idle.requests = 0.5;
  idle.missed = 0.1;
  CHECK(next_headroom(idle, {}, 0.01, 1e6, 30).extra == high.extra);
  CHECK(next_headroom(high, kLate, 0, 1e6, 30) == high);
}
