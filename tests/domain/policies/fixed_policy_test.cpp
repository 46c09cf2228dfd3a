#include "domain/policies/fixed_policy.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

TickInput input_with(double now_s, int a_current, int b_current) {
  TickInput in;
  in.now_s = now_s;
  ModelTickInput m;
  m.model = {"ns", "llama"};
  for (auto [name, current] : {std::pair{"a", a_current}, std::pair{"b", b_current}}) {
    VariantTickInput v;
    v.state.spec.name = name;
    v.state.current_replicas = current;
    m.variants.push_back(v);
  }
  in.models.push_back(m);
  return in;
}

}  // namespace

TEST_CASE("fixed holds each variant at the count of its first tick, whatever happens later") {
  FixedPolicy policy;
  auto first = policy.tick(input_with(30, 2, 0));
  REQUIRE(first.size() == 2);
  CHECK(first[0].target_replicas == 2);
  CHECK(first[1].target_replicas == 0);
  auto later = policy.tick(input_with(60, 5, 1));
  CHECK(later[0].current_replicas == 5);
  CHECK(later[0].target_replicas == 2);
  CHECK(later[1].target_replicas == 0);
  CHECK(later[0].reason.code == ReasonCode::kHold);
  CHECK(later[0].reason.text() == "hold at 2: static provisioning");
  CHECK(later[0].model.model_id == "llama");
}

TEST_CASE("fixed saves and restores its held counts, and rejects a malformed state") {
  FixedPolicy a;
  a.tick(input_with(30, 3, 1));
  FixedPolicy b;
  REQUIRE(b.restore_state(a.save_state()).ok());
  CHECK(b.tick(input_with(60, 7, 7))[0].target_replicas == 3);
  CHECK(b.save_state() == a.save_state());
  CHECK_FALSE(b.restore_state(nlohmann::json{{"held", {{"x", -1}}}}).ok());
  CHECK_FALSE(b.restore_state(nlohmann::json::array()).ok());
}

TEST_CASE("fixed is registered by name") {
  auto p = make_policy("fixed", PolicyConfig{});
  REQUIRE(p.ok());
  CHECK(p.value()->name() == "fixed");
}
