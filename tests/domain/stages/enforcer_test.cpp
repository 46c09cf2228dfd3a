#include "domain/stages/enforcer.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace capstan;

namespace {

VariantState variant(std::string name, double cost, int current, int min = 0, int max = 10) {
  VariantState v;
  v.spec.name = std::move(name);
  v.spec.cost_per_replica = cost;
  v.spec.min_replicas = min;
  v.spec.max_replicas = max;
  v.current_replicas = current;
  return v;
}

ScalingRequest wants(const VariantState& v, int target) {
  return {v.spec.name, v.current_replicas, target,
          {direction_code(v.current_replicas, target), describe_change(v.current_replicas, target)}};
}

EnforcerStep run(const std::vector<VariantState>& vs, const std::vector<ScalingRequest>& rs,
                 double now_s, const EnforcerState& state = {}, EnforcerConfig config = {},
                 ScaleToZeroPolicy stz = {}, std::optional<double> requests = 10.0) {
  EnforcerInput in{{"ns", "llama"}, vs, rs, stz, requests};
  auto r = enforce(in, config, state, now_s);
  REQUIRE(r.ok());
  REQUIRE(r->decisions.size() == vs.size());
  return r.value();
}

}  // namespace

TEST_CASE("A request inside the bounds passes through with its reason") {
  const std::vector<VariantState> vs{variant("a10g", 5, 2)};
  const auto step = run(vs, {wants(vs[0], 3)}, 1000);
  CHECK(step.decisions[0].target_replicas == 3);
  CHECK(step.decisions[0].reason.code == ReasonCode::kScaleUp);
  CHECK(step.decisions[0].model.model_id == "llama");
  CHECK(step.state.variants.at("a10g").last_change_s == 1000);
}

TEST_CASE("Targets are clamped to min and max replicas and the reason names the bound") {
  const std::vector<VariantState> vs{variant("a10g", 5, 4, 1, 5), variant("h100", 15, 3, 2, 10)};
  const auto step = run(vs, {wants(vs[0], 8), wants(vs[1], 1)}, 1000);
  CHECK(step.decisions[0].target_replicas == 5);
  CHECK(step.decisions[0].reason.code == ReasonCode::kMaxReplicas);
  CHECK(step.decisions[1].target_replicas == 2);
  CHECK(step.decisions[1].reason.code == ReasonCode::kMinReplicas);
  CHECK_THAT(step.decisions[1].reason.text(), Catch::Contains("min_replicas 2"));
}

TEST_CASE("Cooldown blocks a scale-down inside the window and lets it through after") {
  const std::vector<VariantState> vs{variant("a10g", 5, 3)};
  EnforcerState state;
  state.variants["a10g"].last_change_s = 1000;  // scaled up at t = 1000
  const auto inside = run(vs, {wants(vs[0], 2)}, 1120, state);
  CHECK(inside.decisions[0].target_replicas == 3);
  CHECK(inside.decisions[0].reason.code == ReasonCode::kCooldown);
  CHECK_THAT(inside.decisions[0].reason.text(), Catch::Contains("120 s ago") &&
                                                  Catch::Contains("cooldown 300 s"));
  CHECK(inside.state.variants.at("a10g").last_change_s == 1000);
  const auto after = run(vs, {wants(vs[0], 2)}, 1300, inside.state);
  CHECK(after.decisions[0].target_replicas == 2);
  CHECK(after.decisions[0].reason.code == ReasonCode::kScaleDown);
}

TEST_CASE("Cooldown never delays a scale-up") {
  const std::vector<VariantState> vs{variant("a10g", 5, 3)};
  EnforcerState state;
  state.variants["a10g"].last_change_s = 1000;
  CHECK(run(vs, {wants(vs[0], 4)}, 1010, state).decisions[0].target_replicas == 4);
}

TEST_CASE("The stabilization window scales down only to the highest recent target") {
  EnforcerConfig config;
  config.scale_down_cooldown_s = 0;
  config.stabilization_window_s = 300;
  const std::vector<VariantState> vs{variant("a10g", 5, 5)};
  auto step = run(vs, {wants(vs[0], 5)}, 0, {}, config);
  step = run(vs, {wants(vs[0], 4)}, 100, step.state, config);
  CHECK(step.decisions[0].target_replicas == 5);
  CHECK(step.decisions[0].reason.code == ReasonCode::kCooldown);
  step = run(vs, {wants(vs[0], 2)}, 200, step.state, config);
  CHECK(step.decisions[0].target_replicas == 5);
  step = run(vs, {wants(vs[0], 2)}, 350, step.state, config);  // the 5 at t = 0 has aged out
  CHECK(step.decisions[0].target_replicas == 4);
  CHECK_THAT(step.decisions[0].reason.text(), Catch::Contains("stabilization window"));
}

TEST_CASE("The pending guard keeps a variant's in-flight target instead of a new action") {
  std::vector<VariantState> vs{variant("a10g", 5, 2)};
  vs[0].desired_replicas = 3;  // asked for 3, has 2
  EnforcerState state;
  state.variants["a10g"].last_change_s = 900;
  const auto step = run(vs, {wants(vs[0], 5)}, 1000, state);
  CHECK(step.decisions[0].target_replicas == 3);
  CHECK(step.decisions[0].reason.code == ReasonCode::kPendingGuard);
  CHECK_THAT(step.decisions[0].reason.text(), Catch::Contains("in flight"));
  CHECK(step.state.variants.at("a10g").last_change_s == 900);  // no new action
  // Once it lands, the next action goes through.
  vs[0].current_replicas = 3;
  CHECK(run(vs, {wants(vs[0], 5)}, 1030, step.state).decisions[0].target_replicas == 5);
}

TEST_CASE("The enforcer scales an idle model to zero only when no variant has a floor") {
  ScaleToZeroPolicy stz;
  stz.enabled = true;
  std::vector<VariantState> vs{variant("a10g", 5, 2), variant("h100", 15, 1)};
  const std::vector<ScalingRequest> rs{wants(vs[0], 2), wants(vs[1], 1)};
  EnforcerConfig no_cooldown;
  no_cooldown.scale_down_cooldown_s = 0;
  auto idle = run(vs, rs, 5000, {}, no_cooldown, stz, 0.0);
  CHECK(idle.decisions[0].target_replicas == 0);
  CHECK(idle.decisions[1].target_replicas == 0);
  CHECK(idle.decisions[0].reason.code == ReasonCode::kScaleToZero);
  vs[1].spec.min_replicas = 1;
  auto floored = run(vs, rs, 5000, {}, no_cooldown, stz, 0.0);
  CHECK(floored.decisions[0].target_replicas == 2);
  CHECK(floored.decisions[1].target_replicas == 1);
}

TEST_CASE("With scale to zero off the enforcer keeps one replica on the cheapest variant") {
  const std::vector<VariantState> vs{variant("h100", 15, 1), variant("a10g", 5, 1)};
  EnforcerConfig no_cooldown;
  no_cooldown.scale_down_cooldown_s = 0;
  const auto step = run(vs, {wants(vs[0], 0), wants(vs[1], 0)}, 5000, {}, no_cooldown);
  CHECK(step.decisions[0].target_replicas == 0);
  CHECK(step.decisions[1].target_replicas == 1);
  CHECK(step.decisions[1].reason.code == ReasonCode::kKeepOneReplica);
}

TEST_CASE("A variant with no request holds, and a request for an unknown variant is an error") {
  const std::vector<VariantState> vs{variant("a10g", 5, 2)};
  CHECK(run(vs, {}, 0).decisions[0].target_replicas == 2);
  const std::vector<ScalingRequest> rs{{"tpu", 1, 2, {}}};
  EnforcerInput in{{"ns", "llama"}, vs, rs, {}, std::nullopt};
  auto r = enforce(in, {}, {}, 0);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("tpu"));
  EnforcerConfig bad;
  bad.scale_down_cooldown_s = -1;
  auto b = enforce(EnforcerInput{{"ns", "llama"}, vs, {}, {}, std::nullopt}, bad, {}, 0);
  REQUIRE_FALSE(b.ok());
  CHECK_THAT(b.error().message, Catch::Contains("scale_down_cooldown_s"));
}

TEST_CASE("The enforcer state survives a JSON round trip unchanged") {
  EnforcerState state;
  state.variants["a10g"].last_change_s = 1234.5;
  state.variants["a10g"].recent_targets = {{1200, 3}, {1230.25, 4}};
  state.variants["h100"] = {};
  const nlohmann::json j = state;
  CHECK(j.get<EnforcerState>() == state);
}
