#include "domain/stages/greedy_optimizer.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

CapacitySignal needs(double required, std::vector<VariantSupply> variants) {
  CapacitySignal s;
  s.unit = "tokens";
  s.required = required;
  s.variants = std::move(variants);
  return s;
}

}  // namespace

TEST_CASE("Greedy-by-score shares a GPU budget across models by priority") {
  // Both models want +6 replicas of 1 GPU; 6 GPUs are free.
  const std::vector<ModelSignals> models{
      {{"ns", "chat"}, 2.0, {needs(48000, {{"a10g", 8000, 5, 1, 0, 1, 20, 1}})}},
      {{"ns", "batch"}, 1.0, {needs(48000, {{"a10g", 8000, 5, 1, 0, 1, 20, 1}})}}};
  auto r = optimize_greedy_by_score(models, 8);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  CHECK((*r)[0].model.model_id == "chat");
  // Two replicas held for every one, the odd one to the higher priority: 6 and 2 of 8.
  CHECK((*r)[0].target_replicas == 6);
  CHECK((*r)[1].target_replicas == 2);
  CHECK((*r)[1].reason.code == ReasonCode::kBudgetLimited);
}

TEST_CASE("Greedy-by-score fills a model's most cost-efficient variant first") {
  const std::vector<ModelSignals> models{
      {{"ns", "chat"},
       1.0,
       {needs(80000, {{"a10g", 8000, 5, 0, 0, 0, 20, 1}, {"h100", 40000, 15, 0, 0, 0, 20, 1}})}}};
  auto r = optimize_greedy_by_score(models, 1);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  CHECK((*r)[0].variant == "h100");  // listed in the order the model wants them filled
  CHECK((*r)[0].target_replicas == 1);  // wanted 2, budget 1
  CHECK((*r)[0].reason.code == ReasonCode::kBudgetLimited);
  CHECK((*r)[1].variant == "a10g");
  CHECK((*r)[1].target_replicas == 0);
}

TEST_CASE("Greedy-by-score with room for everything equals cost-aware") {
  const std::vector<ModelSignals> models{
      {{"ns", "chat"}, 1.0, {needs(20000, {{"a10g", 8000, 5, 1, 0, 1, 20, 1}})}}};
  auto r = optimize_greedy_by_score(models, 100);
  REQUIRE(r.ok());
  CHECK((*r)[0].target_replicas == 4);
  CHECK((*r)[0].reason.code == ReasonCode::kScaleUp);
}
