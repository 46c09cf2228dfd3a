#include "domain/stages/tick_finisher.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace capstan;

namespace {

struct Spec {
  std::string name;
  int current = 1;
  Role role = Role::kBoth;
  double cost = 1;
  int max = 20;
  int gpus = 1;
  bool reported = true;  // ready pods reported metrics
};

VariantTickInput variant(const Spec& s) {
  VariantTickInput in;
  in.state.spec.name = s.name;
  in.state.spec.role = s.role;
  in.state.spec.cost_per_replica = s.cost;
  in.state.spec.max_replicas = s.max;
  in.state.spec.gpus_per_replica = s.gpus;
  in.state.current_replicas = s.current;
  in.state.desired_replicas = s.current;
  for (int i = 0; s.reported && i < s.current; ++i) {
    PodMetrics p;
    p.pod = s.name + "-" + std::to_string(i);
    in.state.pods.push_back(p);
  }
  return in;
}

ModelTickInput model(const std::string& id, std::vector<Spec> specs, int priority = 1) {
  ModelTickInput m;
  m.model = {"ns", id};
  m.priority = priority;
  for (const Spec& s : specs) m.variants.push_back(variant(s));
  return m;
}

// The finishing stages of a whole fleet as the tick driver runs them: each model's
// stages 1-4 (plan), the GPU budget across models (allocate), then each model remembers
// its final targets (settle).
using FinisherStates = std::map<std::string, ModelFinisherState>;  // by model id

std::vector<Decision> finish_tick(const std::vector<ModelRequests>& models, const PolicyConfig& config, double now_s,
                                  double interval_s, FinisherStates& states, const FinishOptions& options = {}) {
  std::vector<TickEvent> events;
  std::vector<ModelProposal> proposals;
  for (const ModelRequests& mr : models) {
    proposals.push_back(finish_model(mr, config, {now_s, interval_s}, states[mr.model->model.model_id], events, options));
  }
  std::vector<Decision> decisions = share_budget(proposals, config, events);
  auto next = decisions.begin();
  for (const ModelProposal& p : proposals) {
    const std::vector<Decision> mine(next, next + static_cast<std::ptrdiff_t>(p.decisions.size()));
    remember_targets(states[p.model.model_id], mine);
    next += static_cast<std::ptrdiff_t>(p.decisions.size());
  }
  return decisions;
}

ScalingRequest ask(const ModelTickInput& m, size_t i, int target) {
  const VariantState& v = m.variants[i].state;
  return {v.spec.name, v.current_replicas, target,
          {direction_code(v.current_replicas, target), describe_change(v.current_replicas, target) + ": policy"}};
}

// The model's requests: targets in variant order.
ModelRequests wishes(const ModelTickInput& m, std::vector<int> targets) {
  ModelRequests mr{&m, {}, {}};
  for (size_t i = 0; i < targets.size(); ++i) mr.requests.push_back(ask(m, i, targets[i]));
  return mr;
}

const FinishOptions kNoEnforcer{.enforcer = false};

int gpus_in_targets(const std::vector<ModelTickInput>& models, const std::vector<Decision>& d) {
  int gpus = 0;
  size_t k = 0;
  for (const ModelTickInput& m : models) {
    for (const VariantTickInput& v : m.variants) gpus += d[k++].target_replicas * v.state.spec.gpus_per_replica;
  }
  return gpus;
}

}  // namespace

TEST_CASE("The step limit cuts a change to the configured step, up and down") {
  const ModelTickInput m = model("m", {{"up", 2}, {"down", 10}, {"small", 4}});
  PolicyConfig config;
  config.max_step_up = 3;
  config.max_step_down = 1;
  FinisherStates state;
  const auto d = finish_tick({wishes(m, {10, 2, 5})}, config, 0, 30, state, kNoEnforcer);
  REQUIRE(d.size() == 3);
  CHECK(d[0].target_replicas == 5);
  CHECK_THAT(d[0].reason.text(), Catch::EndsWith("; limited to 5 by the step limit"));
  CHECK(d[1].target_replicas == 9);
  CHECK(d[1].reason.code == ReasonCode::kScaleDown);
  CHECK(d[2].target_replicas == 5);  // within the step: untouched
  CHECK(d[2].reason.text() == "scale up 4 -> 5: policy");
}

TEST_CASE("Missing metrics hold the last good target, which the step limit does not cut") {
  ModelTickInput m = model("m", {{"v", 2}});
  PolicyConfig config;
  FinisherStates state;
  REQUIRE(finish_tick({wishes(m, {6})}, config, 0, 30, state, kNoEnforcer)[0].target_replicas == 6);

  // The six have not landed; the pods stopped reporting and the policy, reading nothing,
  // asks for one.
  m.variants[0].state.pods.clear();
  config.max_step_up = 1;
  const auto d = finish_tick({wishes(m, {1})}, config, 30, 30, state, kNoEnforcer);
  CHECK(d[0].target_replicas == 6);
  CHECK(d[0].reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(d[0].reason.text(), Catch::StartsWith("hold at 6: 2 ready replica(s) but no pod reported metrics"));
  CHECK(state.at("m").last_good_target.at("v") == 6);  // a hold is not remembered as a new good target
}

TEST_CASE("Stale pod metrics, older than two tick intervals, hold like missing ones") {
  ModelTickInput m = model("m", {{"v", 2}});
  FinisherStates state;
  REQUIRE(finish_tick({wishes(m, {4})}, PolicyConfig{}, 0, 30, state, kNoEnforcer)[0].target_replicas == 4);
  for (PodMetrics& p : m.variants[0].state.pods) p.sample_age_s = 61;
  const Decision d = finish_tick({wishes(m, {1})}, PolicyConfig{}, 30, 30, state, kNoEnforcer)[0];
  CHECK(d.target_replicas == 4);
  CHECK(d.reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(d.reason.text(), Catch::Contains("stale"));
  for (PodMetrics& p : m.variants[0].state.pods) p.sample_age_s = 59;
  CHECK(finish_tick({wishes(m, {1})}, PolicyConfig{}, 60, 30, state, kNoEnforcer)[0].target_replicas == 1);
}

TEST_CASE("A policy's own verdict on its data holds, and pod metrics are not checked for a policy that reads none") {
  const ModelTickInput m = model("m", {{"a", 3}, {"b", 3, Role::kBoth, 1, 20, 1, /*reported=*/false}});
  FinisherStates state;
  state["m"].last_good_target["a"] = 5;
  state["m"].last_good_target["b"] = 4;
  ModelRequests mr = wishes(m, {1, 1});
  mr.unusable = {make_reason(ReasonCode::kMetricsMissing, "load.no_passes", {}), std::nullopt};
  const auto d = finish_tick({mr}, PolicyConfig{}, 0, 30, state, {.enforcer = false, .guard_pod_metrics = false});
  CHECK(d[0].target_replicas == 5);
  CHECK(d[0].reason.code == ReasonCode::kMetricsMissing);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("no forward passes this tick"));
  CHECK(d[1].target_replicas == 1);  // b's silent pods do not matter to this policy

  // A policy that knows its data is bad and still asks for more (a floor) gets it.
  ModelRequests floor = wishes(m, {8, 3});
  floor.unusable = {make_reason(ReasonCode::kMetricsMissing, "load.no_passes", {}), std::nullopt};
  CHECK(finish_tick({floor}, PolicyConfig{}, 30, 30, state, kNoEnforcer)[0].target_replicas == 8);
}

TEST_CASE("The P:D band raises the lagging role on its cheapest variant with room, and says so") {
  // Prefill: "p-cheap" is at its maximum, so the raise goes to "p-dear"; "p-dearest" is left.
  const ModelTickInput m = model("m", {{"p-cheap", 2, Role::kPrefill, 1, 2},
                                       {"p-dear", 0, Role::kPrefill, 2},
                                       {"p-dearest", 0, Role::kPrefill, 3},
                                       {"d", 4, Role::kDecode}});
  PolicyConfig config;
  config.pd_band = {0.5, 1.0};
  FinisherStates state;
  const auto d = finish_tick({wishes(m, {2, 0, 0, 6})}, config, 0, 30, state, kNoEnforcer);
  CHECK(d[0].target_replicas == 2);
  CHECK(d[1].target_replicas == 1);
  CHECK(d[2].target_replicas == 0);
  CHECK(d[3].target_replicas == 6);
  CHECK(d[1].reason.code == ReasonCode::kPdBand);
  CHECK(d[1].reason.text() ==
        "scale up 0 -> 1: prefill:decode 2:6 outside band [0.5, 1]: raise prefill 2 -> 3 (before the band: hold at 0: "
        "policy)");
  CHECK(d[0].reason.text() == "hold at 2: policy");

  // The other side: too much prefill raises decode.
  const auto up = finish_tick({wishes(m, {2, 4, 0, 4})}, config, 30, 30, state, kNoEnforcer);
  CHECK(up[3].target_replicas == 6);
  CHECK(up[3].reason.code == ReasonCode::kPdBand);
  CHECK_THAT(up[3].reason.text(), Catch::Contains("prefill:decode 6:4 outside band [0.5, 1]: raise decode 4 -> 6"));
}

TEST_CASE("The P:D band is left alone in a model without both roles, and when off") {
  const ModelTickInput agg = model("agg", {{"a", 1}, {"d", 6, Role::kDecode}});
  PolicyConfig config;
  config.pd_band = {0.5, 1.0};
  FinisherStates state;
  const auto d = finish_tick({wishes(agg, {1, 6})}, config, 0, 30, state, kNoEnforcer);
  CHECK(d[0].target_replicas == 1);
  const ModelTickInput pd = model("pd", {{"p", 1, Role::kPrefill}, {"d", 6, Role::kDecode}});
  CHECK(finish_tick({wishes(pd, {1, 6})}, PolicyConfig{}, 0, 30, state, kNoEnforcer)[0].target_replicas == 1);
}

TEST_CASE("Stage order: the band works on step-limited targets and its raise stays within the step") {
  const ModelTickInput m = model("m", {{"p", 1, Role::kPrefill}, {"d", 2, Role::kDecode}});
  PolicyConfig config;
  config.pd_band = {1.0, 0};
  config.max_step_up = 1;
  FinisherStates state;
  // Decode asks for 8 and gets 3; the band wants prefill at 3 for that, one step allows 2.
  const auto d = finish_tick({wishes(m, {1, 8})}, config, 0, 30, state, kNoEnforcer);
  CHECK(d[1].target_replicas == 3);
  CHECK(d[0].target_replicas == 2);
  CHECK_THAT(d[0].reason.text(), Catch::Contains("prefill:decode 1:3 outside band [1, inf): raise prefill 1 -> 3; 1 "
                                               "replica(s) of that found no room below max replicas and the step "
                                               "limit"));
}

TEST_CASE("The GPU budget is never exceeded and is shared by priority across models") {
  const std::vector<ModelTickInput> models{model("high", {{"v", 2, Role::kBoth, 1, 40, 2}}, 2),
                                           model("low", {{"v", 2, Role::kBoth, 1, 40, 2}}, 1)};
  PolicyConfig config;
  config.gpu_budget = 20;  // 8 in use, 6 replicas of 2 GPUs to hand out
  FinisherStates state;
  const auto d = finish_tick({wishes(models[0], {10}), wishes(models[1], {10})}, config, 0, 30, state, kNoEnforcer);
  // Two replicas for every one of the priority-1 model, counted on what each holds: the
  // grants give 6 and 4, and one reclaim settles it at 7 and 3.
  CHECK(d[0].target_replicas == 7);
  CHECK(d[1].target_replicas == 3);
  CHECK(gpus_in_targets(models, d) <= 20);
  CHECK(d[0].reason.code == ReasonCode::kBudgetLimited);
  CHECK_THAT(d[1].reason.text(), Catch::Contains("GPU budget"));
  CHECK_THAT(d[1].reason.text(), Catch::Contains("wanted 10"));

  // With the enforcer too.
  FinisherStates other;
  const auto e = finish_tick({wishes(models[0], {10}), wishes(models[1], {10})}, config, 0, 30, other);
  CHECK(gpus_in_targets(models, e) <= 20);
}

TEST_CASE("The budget fills a band raise before the model's other scale-ups, and says when it blocks one") {
  const ModelTickInput m = model("m", {{"d", 4, Role::kDecode}, {"p", 2, Role::kPrefill}});
  PolicyConfig config;
  config.pd_band = {0.5, 1.0};
  config.gpu_budget = 7;  // one GPU to spare: the band's prefill gets it, not decode's growth
  FinisherStates state;
  const auto d = finish_tick({wishes(m, {6, 2})}, config, 0, 30, state, kNoEnforcer);
  CHECK(d[1].target_replicas == 3);
  CHECK(d[0].target_replicas == 4);
  CHECK(d[0].reason.code == ReasonCode::kBudgetLimited);

  config.gpu_budget = 6;  // nothing to spare: the band is left unmet, and the reason says why
  FinisherStates tight;
  const auto t = finish_tick({wishes(m, {6, 2})}, config, 0, 30, tight, kNoEnforcer);
  CHECK(t[1].target_replicas == 2);
  CHECK(t[1].reason.code == ReasonCode::kBudgetLimited);
  CHECK_THAT(t[1].reason.text(), Catch::Contains("GPU budget"));
  CHECK_THAT(t[1].reason.text(), Catch::Contains("prefill:decode 2:6 outside band [0.5, 1]: raise prefill 2 -> 3"));
}

TEST_CASE("The WVA enforcer's cooldown runs only when asked for") {
  const ModelTickInput two = model("m", {{"v", 2}});
  const ModelTickInput four = model("m", {{"v", 4}});
  PolicyConfig config;  // 300 s scale-down cooldown
  for (bool enforcer : {true, false}) {
    FinisherStates state;
    REQUIRE(finish_tick({wishes(two, {4})}, config, 0, 30, state, {.enforcer = enforcer})[0].target_replicas == 4);
    const Decision d = finish_tick({wishes(four, {2})}, config, 30, 30, state, {.enforcer = enforcer})[0];
    CHECK(d.target_replicas == (enforcer ? 4 : 2));
    CHECK(d.reason.code == (enforcer ? ReasonCode::kCooldown : ReasonCode::kScaleDown));
  }
}

TEST_CASE("Finisher state survives a JSON round trip") {
  const ModelTickInput m = model("m", {{"v", 2}});
  PolicyConfig config;
  config.scale_to_zero_retention_s = 600;
  FinisherStates state;
  finish_tick({wishes(m, {3})}, config, 0, 30, state);
  const nlohmann::json j = state.at("m");
  CHECK(nlohmann::json::parse(j.dump()).get<ModelFinisherState>() == state.at("m"));
}
