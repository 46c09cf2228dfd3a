#include "domain/core/reason.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/tick_input_codec.hpp"

using namespace capstan;

namespace {

Reason hybrid_reason(std::vector<Figure> capacity) {
  const Reason optimizer = make_reason(ReasonCode::kScaleUp, "optimizer.up",
                                       {{"current", 2}, {"target", 3}, {"unit", "req/s"}, {"required", 4.4},
                                        {"cost_per_replica", 2.5}, {"per_replica_capacity", 7.88}});
  std::vector<Figure> figures{{"current", 2},      {"target", 3},           {"demand_rps", 12.5},
                              {"forecast_rps", 11.2}, {"horizon_s", 329.6}, {"observed_rps", 10.0},
                              {"backlog", 40.0},   {"backlog_ahead", 12.4}, {"peak_rps", 14.0},
                              {"keep_s", 300.0},   {"supply_rps", 9.0},     {"queued", false}};
  figures.insert(figures.end(), capacity.begin(), capacity.end());
  return make_reason(ReasonCode::kScaleUp, "hybrid.sized", std::move(figures), {optimizer});
}

}  // namespace

TEST_CASE("A hybrid sentence names the optimizer's choice, the demand and the capacity it was sized from") {
  const Reason r = hybrid_reason({{"capacity_rps", 7.88}, {"bound", "mean"}, {"ttft_target_ms", 2000.0},
                                  {"itl_target_ms", 100.0}, {"tail_probability", 0.01}, {"itl_sized_ms", 0.0},
                                  {"predicted_ttft_ms", 640.0}, {"observed_wait_ms", 25.0}});
  CHECK(r.text() ==
        "scale up 2 -> 3: 4 req/s required; 2.5 per 8 req/s is the most cost-efficient; demand 12.5 req/s (forecast "
        "11.2 req/s at t+330 s, observed 10 req/s + backlog 40, 12 when new replicas are ready), peak 14 req/s over "
        "the last 300 s, supply 9 req/s; lambda* 7.88 req/s per replica, est. TTFT 665 ms incl. 25 ms observed "
        "queueing");
  CHECK(r.causes().size() == 1);
  CHECK(std::get<double>(*find_figure(r, "demand_rps")) == 12.5);
}

TEST_CASE("A hybrid sentence says which bound set the capacity and when the queueing is unbounded") {
  auto with = [](std::string bound, double wait_ms) {
    return hybrid_reason({{"capacity_rps", 7.88}, {"bound", std::move(bound)}, {"ttft_target_ms", 2000.0},
                          {"itl_target_ms", 100.0}, {"tail_probability", 0.01}, {"itl_sized_ms", 72.64},
                          {"predicted_ttft_ms", 640.0}, {"observed_wait_ms", wait_ms}})
        .text();
  };
  CHECK_THAT(with("ttft-tail", 0), Catch::Contains("(tail-bound: P(TTFT > 2000 ms) <= 0.01)"));
  CHECK_THAT(with("itl-spread", 0), Catch::Contains("(tail-bound: P(ITL > 100 ms) <= 0.01 by the measured spread "
                                                    "of requests' ITL, mean ITL sized to 72.6 ms)"));
  CHECK_THAT(with("served", 0), Catch::Contains("(as served now within the SLO, above the learned model's)"));
  CHECK_THAT(with("mean", std::numeric_limits<double>::infinity()),
             Catch::EndsWith("est. TTFT 640 ms incl. unbounded observed queueing"));
}

TEST_CASE("A stage that changes a target keeps the policy's reason as its cause") {
  const Reason policy = make_reason(ReasonCode::kScaleDown, "optimizer.spare_too_small",
                                    {{"current", 4}, {"target", 4}, {"unit", ""}, {"spare", 0.4}});
  const Reason held = make_reason(ReasonCode::kCooldown, "enforcer.cooldown",
                                  {{"current", 4}, {"target", 4}, {"wanted", 3}, {"since_change_s", 60.0},
                                   {"cooldown_s", 300.0}},
                                  {policy});
  CHECK(held.text() == "hold at 4, wanted 3: last change 60 s ago, scale-down cooldown 300 s");
  REQUIRE(held.causes().size() == 1);
  CHECK(held.causes()[0].text() == "hold at 4: 0.4 spare, less than one replica here or at its floor");
  const Reason limited = make_reason(ReasonCode::kScaleUp, "step.limited", {{"target", 6}}, {policy});
  CHECK(limited.text() == policy.text() + "; limited to 6 by the step limit");
}

TEST_CASE("A missing figure or an unknown kind shows in the sentence instead of failing the tick") {
  CHECK(make_reason(ReasonCode::kHold, "bounds.min", {{"current", 1}, {"target", 2}}).text() ==
        "scale up 1 -> 2: min_replicas <bounds.min: no min_replicas>");
  CHECK(make_reason(ReasonCode::kHold, "no.such.kind", {}).text() == "<unknown reason kind no.such.kind>");
  CHECK(render_reason(Reason(ReasonCode::kHold, "given as text")) == "given as text");
}

TEST_CASE("A reason read back with its recorded sentence keeps that sentence, not today's rendering of its figures") {
  const Reason made = make_reason(ReasonCode::kHold, "bounds.min", {{"current", 1}, {"target", 2}, {"min_replicas", 2}});
  Reason recorded(ReasonCode::kHold, "raised to 2 (as an older build wrote it)");
  recorded.detail = made.detail;
  CHECK(recorded.text() == "raised to 2 (as an older build wrote it)");
  CHECK(render_reason(recorded) == made.text());
  CHECK_FALSE(recorded == made);  // as when the sentence was kept beside the figures
  Reason same_sentence(ReasonCode::kHold, made.text());
  same_sentence.detail = made.detail;
  CHECK(same_sentence == made);
  CHECK(make_reason(ReasonCode::kHold, "bounds.min", {{"current", 1}, {"target", 2}, {"min_replicas", 2}}) == made);
  CHECK_FALSE(make_reason(ReasonCode::kHold, "bounds.min", {{"current", 1}, {"target", 3}, {"min_replicas", 3}}) == made);
  CHECK(Reason() == Reason(ReasonCode::kHold, ""));
  CHECK(Reason().text().empty());
}

TEST_CASE("Reason kinds are unique") {
  const auto kinds = reason_kinds();
  CHECK(std::set<std::string_view>(kinds.begin(), kinds.end()).size() == kinds.size());
  CHECK(kinds.size() > 60);
}

TEST_CASE("A reason round-trips through its codec with its figures, their types and its causes") {
  const Reason inner = make_reason(ReasonCode::kScaleUp, "optimizer.up",
                                   {{"current", 2}, {"target", 3}, {"unit", "req/s"}, {"required", 4.4},
                                    {"cost_per_replica", 2.5}, {"per_replica_capacity", 7.88}});
  const Reason r = make_reason(ReasonCode::kBudgetLimited, "budget.limited",
                               {{"current", 2}, {"target", 2}, {"wanted", 3}, {"gpu_budget", 8},
                                {"gpus_in_targets", 8}, {"gpus_per_replica", 2},
                                {"nan_figure", std::numeric_limits<double>::quiet_NaN()}},
                               {inner});
  const nlohmann::json j = encode_reason(r);
  const Reason back = read_reason(FieldReader(j, "reason"));
  CHECK(back.text() == r.text());
  CHECK(back.kind() == r.kind());
  CHECK(back.causes() == r.causes());
  REQUIRE(back.figures().size() == r.figures().size());
  CHECK(std::holds_alternative<long long>(back.figures()[0].value));
  CHECK(std::isnan(std::get<double>(back.figures().back().value)));
  CHECK(render_reason(back) == r.text());

  nlohmann::json bad = j;
  bad["figures"][1] = {{"n", "target"}};
  CHECK_THROWS_WITH(read_reason(FieldReader(bad, "reason")), Catch::Contains("reason.figures[1]"));
}

TEST_CASE("A rounded rate is never rounded to 0") {
  const Reason r = make_reason(ReasonCode::kScaleUp, "optimizer.up",
                               {{"current", 0}, {"target", 8}, {"unit", "req/s"}, {"required", 1.2},
                                {"cost_per_replica", 8.0}, {"per_replica_capacity", 0.1523}});
  CHECK_THAT(r.text(), Catch::Contains("8 per 0.15 req/s is the most cost-efficient"));
  CHECK_THAT(r.text(), Catch::Contains("1 req/s required"));
}
