#include "domain/stages/gpu_budget.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

PlannedRequest wants(std::string variant, int current, int target, int gpus = 1) {
  return {{std::move(variant), current, target,
           {direction_code(current, target), describe_change(current, target)}},
          gpus};
}

ModelPlan plan(std::string model, double priority, std::vector<PlannedRequest> requests) {
  return {{"ns", std::move(model)}, priority, std::move(requests)};
}

std::vector<Decision> share(const std::vector<ModelPlan>& plans, int budget) {
  auto r = share_gpu_budget(plans, budget);
  REQUIRE(r.ok());
  return r.value();
}

int gpus_in(const std::vector<Decision>& ds, const std::vector<ModelPlan>& plans) {
  int gpus = 0;
  std::size_t i = 0;
  for (const auto& p : plans) {
    for (const auto& r : p.requests) gpus += ds[i++].target_replicas * r.gpus_per_replica;
  }
  return gpus;
}

}  // namespace

TEST_CASE("Scale-ups that fit the budget are granted unchanged") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 2, 4)})};
  const auto ds = share(plans, 10);
  CHECK(ds[0].target_replicas == 4);
  CHECK(ds[0].reason.code == ReasonCode::kScaleUp);
}

TEST_CASE("The budget is never exceeded and a blocked scale-up says the budget blocked it") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 2, 6, 2)})};  // 4 -> 12 GPUs
  const auto ds = share(plans, 8);
  CHECK(ds[0].target_replicas == 4);
  CHECK(gpus_in(ds, plans) <= 8);
  CHECK(ds[0].reason.code == ReasonCode::kBudgetLimited);
  CHECK_THAT(ds[0].reason.text(), Catch::Contains("wanted 6") && Catch::Contains("budget 8 GPUs"));
}

TEST_CASE("A blocked scale-up's reason says the budget blocked it, with wanted, granted and the budget") {
  PlannedRequest req = wants("v", 2, 6, 4);
  req.request.reason = Reason(req.request.reason.code, "scale up 2 -> 6: demand 40 req/s");
  const std::vector<ModelPlan> plans{plan("a", 1, {req})};
  const auto ds = share(plans, 8);  // 8 GPUs in use: nothing fits
  CHECK(ds[0].target_replicas == 2);
  CHECK(ds[0].reason.text() ==
        "hold at 2: GPU budget blocked the scale-up (wanted 6, granted 2; budget 8 GPUs, 8 in targets, "
        "4 per replica); policy: scale up 2 -> 6: demand 40 req/s");
}

TEST_CASE("A scale-up cut short names the replicas granted and the GPUs left in targets") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 2, 6, 2)})};
  const auto ds = share(plans, 9);  // 4 GPUs in use, room for two more replicas of 2
  CHECK(ds[0].target_replicas == 4);
  CHECK_THAT(ds[0].reason.text(),
             Catch::StartsWith("scale up 2 -> 4: GPU budget cut the scale-up short (wanted 6, granted 4; "
                               "budget 9 GPUs, 8 in targets, 2 per replica)"));
}

TEST_CASE("Equal priorities split the free GPUs evenly") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 1, 10)}),
                                     plan("b", 1, {wants("w", 1, 10)})};
  const auto ds = share(plans, 8);  // 2 in use, 6 free
  CHECK(ds[0].target_replicas == 4);
  CHECK(ds[1].target_replicas == 4);
}

TEST_CASE("Priority 2 against 1 gets two replicas for every one") {
  const std::vector<ModelPlan> plans{plan("low", 1, {wants("v", 0, 10)}),
                                     plan("high", 2, {wants("w", 0, 10)})};
  const auto ds = share(plans, 6);
  CHECK(ds[1].target_replicas == 4);
  CHECK(ds[0].target_replicas == 2);
  CHECK(ds[0].reason.code == ReasonCode::kBudgetLimited);
}

TEST_CASE("Scale-downs free GPUs for other models' scale-ups in the same tick") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 4, 1)}),
                                     plan("b", 1, {wants("w", 2, 5)})};
  const auto ds = share(plans, 6);
  CHECK(ds[0].target_replicas == 1);
  CHECK(ds[1].target_replicas == 5);
}

TEST_CASE("A replica too large for the rest closes that request but a smaller one may fit") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("h100x8", 1, 2, 8), wants("l4", 1, 3, 1)})};
  const auto ds = share(plans, 12);  // 9 in use, 3 free
  CHECK(ds[0].target_replicas == 1);
  CHECK(ds[0].reason.code == ReasonCode::kBudgetLimited);
  CHECK(ds[1].target_replicas == 3);
}

TEST_CASE("Over budget already: nothing is added and nothing serving is evicted") {
  const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 10, 12), wants("w", 3, 3)})};
  const auto ds = share(plans, 8);
  CHECK(ds[0].target_replicas == 10);
  CHECK(ds[0].reason.code == ReasonCode::kBudgetLimited);
  CHECK(ds[1].target_replicas == 3);
}

TEST_CASE("Invalid budget inputs are rejected with the field name") {
  auto neg = share_gpu_budget(std::vector<ModelPlan>{}, -1);
  REQUIRE_FALSE(neg.ok());
  CHECK_THAT(neg.error().message, Catch::Contains("gpu_budget"));
  auto prio = share_gpu_budget(std::vector<ModelPlan>{plan("a", 0, {})}, 4);
  REQUIRE_FALSE(prio.ok());
  CHECK_THAT(prio.error().message, Catch::Contains("priority"));
  auto gpus = share_gpu_budget(std::vector<ModelPlan>{plan("a", 1, {wants("v", 1, 2, 0)})}, 4);
  REQUIRE_FALSE(gpus.ok());
  CHECK_THAT(gpus.error().message, Catch::Contains("gpus_per_replica"));
}

TEST_CASE("A blocked higher-priority scale-up reclaims one replica per tick from a lower-priority model, which says so") {
  PlannedRequest held = wants("v", 4, 4);
  held.request.reason = Reason(held.request.reason.code, "hold at 4: demand 30 req/s");
  const std::vector<ModelPlan> plans{plan("chat", 2, {wants("v", 1, 4)}), plan("batch", 1, {held})};
  const auto ds = share(plans, 5);
  CHECK(ds[0].target_replicas == 2);  // one replica, not all it wants
  CHECK(ds[1].target_replicas == 3);
  CHECK(gpus_in(ds, plans) <= 5);
  CHECK(ds[1].reason.code == ReasonCode::kBudgetLimited);
  CHECK(ds[1].reason.text() ==
        "scale down 4 -> 3: the GPU budget (5 GPUs) gives a replica to chat at priority 2 over this model's 1; "
        "policy: hold at 4: demand 30 req/s");
  CHECK(ds[0].reason.code == ReasonCode::kBudgetLimited);  // still short of 4
}

TEST_CASE("Reclaims stop at equal priority, at the donor's minimum, and where the claims balance two to one") {
  SECTION("equal priority: the budget limits growth only") {
    const std::vector<ModelPlan> plans{plan("a", 1, {wants("v", 1, 4)}), plan("b", 1, {wants("v", 4, 4)})};
    const auto ds = share(plans, 5);
    CHECK(ds[0].target_replicas == 1);
    CHECK(ds[1].target_replicas == 4);
  }
  SECTION("the donor's variants at their minimum") {
    PlannedRequest at_min = wants("v", 4, 4);
    at_min.min_replicas = 4;
    const std::vector<ModelPlan> plans{plan("a", 2, {wants("v", 1, 4)}), plan("b", 1, {at_min})};
    const auto ds = share(plans, 5);
    CHECK(ds[0].target_replicas == 1);
    CHECK(ds[1].target_replicas == 4);
  }
  SECTION("tick after tick, priority 2 against 1 settles at two replicas for every one") {
    int a = 1, b = 5;
    for (int tick = 0; tick < 10; ++tick) {
      const std::vector<ModelPlan> plans{plan("a", 2, {wants("v", a, 10)}), plan("b", 1, {wants("v", b, 10)})};
      const auto ds = share(plans, 6);
      REQUIRE(gpus_in(ds, plans) <= 6);
      a = ds[0].target_replicas;
      b = ds[1].target_replicas;
    }
    CHECK(a == 4);
    CHECK(b == 2);
  }
  SECTION("the least preferred variant gives first") {
    const std::vector<ModelPlan> plans{plan("a", 2, {wants("v", 0, 2)}),
                                       plan("b", 1, {wants("cheap", 2, 2), wants("dear", 2, 2)})};
    const auto ds = share(plans, 4);
    CHECK(ds[0].target_replicas == 1);
    CHECK(ds[1].target_replicas == 2);
    CHECK(ds[2].target_replicas == 1);
  }
}
