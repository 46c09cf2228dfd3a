#include "sim/report/slo_targets.hpp"

#include <catch2/catch.hpp>

using namespace capstan::sim;
using nlohmann::json;

namespace {

struct Row {
  const char* policy;
  double attainment;
  double gpu_hours;
};

// One seed's summary as `capstan simulate --json` writes it, with only the fields judged.
json seed_summary(const std::vector<Row>& rows, double static_gpu_hours, bool static_meets = true) {
  json policies = json::array();
  for (const Row& r : rows)
    policies.push_back({{"policy", r.policy}, {"slo_attainment", r.attainment}, {"gpu_hours", r.gpu_hours},
                        {"error", nullptr}});
  return {{"policies", policies},
          {"static_fleet", {{"best", {{"gpu_hours", static_gpu_hours}, {"meets", static_meets}}}}}};
}

json seeds_document(const std::vector<json>& per_seed) {
  json seeds = json::array();
  for (std::size_t i = 0; i < per_seed.size(); ++i) seeds.push_back(i + 1);
  return {{"seeds", seeds}, {"per_seed", per_seed}};
}

const PeerComparison& peer(const SloTargetsVerdict& v, const std::string& name) {
  for (const auto& p : v.peers)
    if (p.policy == name) return p;
  FAIL("no peer " << name);
  return v.peers.front();
}

}  // namespace

TEST_CASE("A policy that reaches the attainment below the static fleet and far below every peer meets every target") {
  const auto doc = seeds_document({
      seed_summary({{"hybrid", 0.995, 30}, {"fixed", 0.999, 48}, {"hpa", 0.90, 20}}, 40),
      seed_summary({{"hybrid", 0.992, 32}, {"fixed", 0.999, 48}, {"hpa", 0.91, 21}}, 40),
      seed_summary({{"hybrid", 0.998, 31}, {"fixed", 0.999, 48}, {"hpa", 0.92, 22}}, 44),
  });
  auto v = judge_slo_targets(doc, {});
  REQUIRE(v.ok());
  CHECK(v->seeds == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(v->attainment.median == Approx(0.995));
  CHECK(v->attainment.worst == Approx(0.992));
  CHECK(v->gpu_hours.median == Approx(31));
  CHECK(v->gpu_hours.worst == Approx(32));
  REQUIRE(v->vs_static.has_value());
  CHECK(v->vs_static->worst == Approx(32.0 / 40));
  // hpa is cheaper but reaches less: it is no yardstick for hybrid.
  CHECK_FALSE(peer(*v, "hpa").counts_at_median);
  CHECK(peer(*v, "hpa").seeds_counted.empty());
  CHECK(peer(*v, "fixed").counts_at_median);
  CHECK(peer(*v, "fixed").median_ratio == Approx(31.0 / 48));
  CHECK(*peer(*v, "fixed").worst_ratio == Approx(32.0 / 48));
  CHECK(v->all_met());
}

TEST_CASE("One seed below the attainment fails the worst-seed target, not the median") {
  const auto doc = seeds_document({
      seed_summary({{"hybrid", 0.995, 30}, {"fixed", 0.999, 48}}, 40),
      seed_summary({{"hybrid", 0.970, 30}, {"fixed", 0.999, 48}}, 40),
      seed_summary({{"hybrid", 0.996, 30}, {"fixed", 0.999, 48}}, 40),
  });
  auto v = judge_slo_targets(doc, {});
  REQUIRE(v.ok());
  CHECK(v->reaches_attainment.median_met);
  CHECK_FALSE(v->reaches_attainment.worst_met);
  CHECK_FALSE(v->all_met());
}

TEST_CASE("The static-fleet target is not met when no static fleet within the maxima meets the attainment") {
  const auto doc = seeds_document({
      seed_summary({{"hybrid", 0.80, 30}, {"fixed", 0.50, 15}}, 54, /*static_meets=*/false),
      seed_summary({{"hybrid", 0.79, 31}, {"fixed", 0.50, 15}}, 54, /*static_meets=*/true),
  });
  auto v = judge_slo_targets(doc, {});
  REQUIRE(v.ok());
  CHECK(v->static_misses == std::vector<std::uint64_t>{1});
  // hybrid is far cheaper than that fleet, but it is no yardstick: the target stays unmet.
  CHECK(v->vs_static->worst < 1.0);
  CHECK_FALSE(v->within_static.median_met);
  CHECK_FALSE(v->within_static.worst_met);
}

TEST_CASE("A peer counts at a seed only where its attainment there is equal or better, and its worst ratio is per seed") {
  // hpa's median attainment is below hybrid's, so it is not judged at the median; at seed 2
  // it is at hybrid's attainment for 40 GPU-hours against hybrid's 35 (0.875 > 0.75).
  const auto doc = seeds_document({
      seed_summary({{"hybrid", 0.999, 30}, {"hpa", 0.990, 60}}, 40),
      seed_summary({{"hybrid", 0.995, 35}, {"hpa", 0.995, 40}}, 40),
      seed_summary({{"hybrid", 0.999, 30}, {"hpa", 0.991, 60}}, 40),
  });
  auto v = judge_slo_targets(doc, {});
  REQUIRE(v.ok());
  const auto& hpa = peer(*v, "hpa");
  CHECK_FALSE(hpa.counts_at_median);
  CHECK(hpa.seeds_counted == std::vector<std::uint64_t>{2});
  CHECK(*hpa.worst_ratio == Approx(35.0 / 40));
  CHECK(v->below_peers.median_met);
  CHECK_FALSE(v->below_peers.worst_met);
}

TEST_CASE("A peer at equal median attainment over 0.75x the policy's GPU-hours fails the peer target at the median") {
  const auto doc = seeds_document({seed_summary({{"hybrid", 1.0, 46}, {"fixed", 1.0, 64}, {"erlang", 1.0, 70}}, 48)});
  auto v = judge_slo_targets(doc, {});
  REQUIRE(v.ok());
  CHECK(peer(*v, "fixed").median_ratio == Approx(46.0 / 64));
  CHECK(peer(*v, "erlang").median_ratio == Approx(46.0 / 70));
  CHECK(v->below_peers.median_met);  // 0.719 and 0.657
  SloTargetsSpec stricter;
  stricter.peer_ratio = 0.7;
  auto w = judge_slo_targets(doc, stricter);
  REQUIRE(w.ok());
  CHECK_FALSE(w->below_peers.median_met);
}

TEST_CASE("A single-seed document is judged as one seed") {
  auto v = judge_slo_targets(seed_summary({{"hybrid", 0.995, 30}, {"fixed", 0.999, 48}}, 40), {});
  REQUIRE(v.ok());
  CHECK(v->seeds.size() == 1);
  CHECK(v->all_met());
}

TEST_CASE("A document without the policy or the static fleet is an error naming what is missing") {
  auto no_policy = judge_slo_targets(seeds_document({seed_summary({{"fixed", 0.999, 48}}, 40)}), {});
  REQUIRE_FALSE(no_policy.ok());
  CHECK_THAT(no_policy.error().message, Catch::Contains("seed 1: no row for policy 'hybrid'"));
  json no_static = seed_summary({{"hybrid", 0.995, 30}}, 40);
  no_static.erase("static_fleet");
  auto missing = judge_slo_targets(no_static, {});
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("static_fleet.best.gpu_hours"));
}

TEST_CASE("The static fleet's attainment from the start is read per seed, and only where every seed has it") {
  std::vector<json> per_seed;
  for (double a : {0.93, 0.95, 0.91}) {
    json s = seed_summary({{"hybrid", 0.8, 30}, {"fixed", 0.5, 15}}, 40);
    s["static_fleet"]["from_start"] = {{"attainment", a}, {"gpu_hours", 41}};
    per_seed.push_back(s);
  }
  auto v = judge_slo_targets(seeds_document(per_seed), {});
  REQUIRE(v.ok());
  REQUIRE(v->static_from_start_attainment.has_value());
  CHECK(v->static_from_start_attainment->median == Approx(0.93));
  CHECK(v->static_from_start_attainment->worst == Approx(0.91));
  // A document written before the figure existed (or missing it at a seed) has none.
  per_seed[1]["static_fleet"].erase("from_start");
  auto older = judge_slo_targets(seeds_document(per_seed), {});
  REQUIRE(older.ok());
  CHECK_FALSE(older->static_from_start_attainment.has_value());
}
