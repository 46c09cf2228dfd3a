#include "domain/stages/scale_to_zero.hpp"

#include <catch2/catch.hpp>

using namespace capstan;

namespace {

VariantState variant(std::string name, double cost, int current, int min = 0) {
  VariantState v;
  v.spec.name = std::move(name);
  v.spec.cost_per_replica = cost;
  v.spec.min_replicas = min;
  v.spec.max_replicas = 10;
  v.current_replicas = current;
  return v;
}

std::vector<ScalingRequest> holds(const std::vector<VariantState>& vs) {
  std::vector<ScalingRequest> out;
  for (const auto& v : vs) out.push_back(hold(v.spec.name, v.current_replicas, ReasonCode::kHold, "hold"));
  return out;
}

ScaleToZeroPolicy enabled() {
  ScaleToZeroPolicy p;
  p.enabled = true;
  return p;
}

ScaleToZeroPolicy resolve(const ScaleToZeroSetting& model, const ScaleToZeroSetting& global,
                          std::optional<std::string_view> env) {
  auto r = resolve_scale_to_zero(model, global, env);
  REQUIRE(r.ok());
  return r.value();
}

}  // namespace

TEST_CASE("Scale to zero is off and the retention period 10 minutes when nothing is set") {
  const auto p = resolve({}, {}, std::nullopt);
  CHECK_FALSE(p.enabled);
  CHECK(p.enabled_from == SettingSource::kDefault);
  CHECK(p.retention_s == 600);
}

TEST_CASE("Scale-to-zero settings resolve per-model over global over environment over off") {
  CHECK(resolve({}, {}, "TRUE").enabled);
  CHECK(resolve({}, {}, "TRUE").enabled_from == SettingSource::kEnvironment);
  CHECK_FALSE(resolve({}, {false, {}}, "true").enabled);
  CHECK(resolve({}, {false, {}}, "true").enabled_from == SettingSource::kGlobal);
  CHECK(resolve({true, {}}, {false, {}}, "false").enabled);
  CHECK(resolve({true, {}}, {false, {}}, "false").enabled_from == SettingSource::kModel);
  // A per-model entry that sets only the retention inherits the switch.
  const auto partial = resolve({{}, 120}, {true, 300}, std::nullopt);
  CHECK(partial.enabled);
  CHECK(partial.enabled_from == SettingSource::kGlobal);
  CHECK(partial.retention_s == 120);
  CHECK(partial.retention_from == SettingSource::kModel);
  CHECK(resolve({}, {{}, 300}, std::nullopt).retention_s == 300);
  CHECK_FALSE(resolve({}, {}, "").enabled);
}

TEST_CASE("Unreadable scale-to-zero settings are errors naming the setting") {
  auto env = resolve_scale_to_zero({}, {}, "yes please");
  REQUIRE_FALSE(env.ok());
  CHECK_THAT(env.error().message, Catch::Contains("CAPSTAN_SCALE_TO_ZERO") &&
                                      Catch::Contains("yes please"));
  auto retention = resolve_scale_to_zero({{}, -5}, {}, std::nullopt);
  REQUIRE_FALSE(retention.ok());
  CHECK_THAT(retention.error().message, Catch::Contains("retention_s") && Catch::Contains("-5"));
}

TEST_CASE("An idle model goes to zero after the retention period when no variant has a floor") {
  const std::vector<VariantState> vs{variant("a10g", 5, 2), variant("h100", 15, 1)};
  const auto out = apply_scale_to_zero(vs, holds(vs), enabled(), 0.0);
  for (const auto& r : out) {
    CHECK(r.target_replicas == 0);
    CHECK(r.reason.code == ReasonCode::kScaleToZero);
  }
  CHECK_THAT(out[0].reason.text(), Catch::Contains("no requests in the last 600 s"));
}

TEST_CASE("Scale to zero is skipped when any variant has min_replicas above zero") {
  const std::vector<VariantState> vs{variant("a10g", 5, 2), variant("h100", 15, 1, 1)};
  const auto out = apply_scale_to_zero(vs, holds(vs), enabled(), 0.0);
  CHECK(out[0].target_replicas == 2);
  CHECK(out[1].target_replicas == 1);
}

TEST_CASE("A model with requests in the retention period, or an unknown count, keeps its targets") {
  const std::vector<VariantState> vs{variant("a10g", 5, 2)};
  CHECK(apply_scale_to_zero(vs, holds(vs), enabled(), 3.0)[0].target_replicas == 2);
  CHECK(apply_scale_to_zero(vs, holds(vs), enabled(), std::nullopt)[0].target_replicas == 2);
}

TEST_CASE("With scale to zero off a model going to zero keeps one replica on the cheapest variant") {
  const std::vector<VariantState> vs{variant("h100", 15, 1), variant("a10g", 5, 1)};
  auto requests = holds(vs);
  for (auto& r : requests) r.target_replicas = 0;
  const auto out = apply_scale_to_zero(vs, requests, ScaleToZeroPolicy{}, 0.0);
  CHECK(out[0].target_replicas == 0);
  CHECK(out[1].target_replicas == 1);
  CHECK(out[1].reason.code == ReasonCode::kKeepOneReplica);
}

TEST_CASE("Requests waiting for a model at zero bring up one replica of the cheapest variant") {
  std::vector<VariantState> vs{variant("h100", 15, 0), variant("a10g", 5, 0)};
  const auto up = scale_from_zero(vs, 3);
  REQUIRE(up);
  CHECK(up->variant == "a10g");
  CHECK(up->target_replicas == 1);
  CHECK(up->reason.code == ReasonCode::kScaleFromZero);
  CHECK_FALSE(scale_from_zero(vs, 0));
  vs[0].desired_replicas = 1;  // already on its way up
  CHECK_FALSE(scale_from_zero(vs, 3));
  vs[0].desired_replicas.reset();
  vs[0].current_replicas = 1;
  CHECK_FALSE(scale_from_zero(vs, 3));
}
