// actors/messages.hpp: every message goes through CAF's own serializer and back unchanged
// (its `inspect` is the codec's MessagePack), and a damaged one is refused by name.
#include <catch2/catch.hpp>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "actors/message_codec.hpp"
#include "actors/messages.hpp"
#include "actors/resume.hpp"
#include "domain/codec/tick_input_test_support.hpp"
#include "domain/core/reason.hpp"
#include "domain/policies/policy.hpp"

namespace capstan {
namespace {

template <class T>
T round_trip(caf::actor_system& system, T value) {
  std::vector<char> buffer;
  caf::binary_serializer sink{system, buffer};
  REQUIRE_FALSE(sink(value));
  caf::binary_deserializer source{system, buffer};
  T back;
  REQUIRE_FALSE(source(back));
  return back;
}

Decision sample_decision() {
  Decision d;
  d.model = {"prod", "llama-70b"};
  d.variant = "h100";
  d.current_replicas = 3;
  d.target_replicas = 4;
  d.reason = Reason(ReasonCode::kScaleUp, "scale up 3 -> 4: demand");
  return d;
}

TEST_CASE("a model's snapshot written directly is the MessagePack of its JSON document, under every policy") {
  std::size_t compared = 0;
  for (const std::string recording : {"budget", "disagg", "stale-gap"}) {
    const std::vector<TickInput> inputs = testing::recorded_inputs(recording);
    for (const PolicyInfo& info : registered_policies()) {
      DrivenPolicy policy(info.make(), PolicyConfig{});
      for (std::size_t t = 0; t < inputs.size(); ++t) {
        policy.tick(inputs[t]);
        for (const auto& [key, snapshot] : actors::model_snapshots(info.name, policy.memory())) {
          INFO(recording << " " << info.name << " after tick " << t << ", model " << key.model_id);
          const std::vector<std::uint8_t> tree = nlohmann::json::to_msgpack(actors::to_message_json(snapshot));
          CHECK(actors::encode_model_snapshot(snapshot) == std::string(tree.begin(), tree.end()));
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 100);
}

TEST_CASE("plan replies, settle requests and tick summaries survive CAF's serializer unchanged") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};

  actors::PlanReply reply;
  reply.proposal.model = {"prod", "llama-70b"};
  reply.proposal.priority = 2;
  reply.proposal.decisions = {sample_decision()};
  reply.proposal.gpus_per_replica = {4};
  reply.proposal.band_raised = {false};
  ParamsLearned learned;
  learned.variant = {{"prod", "llama-70b"}, "h100"};
  learned.params = {12.5, 0.03, 0.0001};
  learned.nis = std::numeric_limits<double>::quiet_NaN();
  learned.source = "ekf";
  reply.learn_events = {learned};
  const auto back = round_trip(system, reply);
  CHECK(back.proposal == reply.proposal);
  REQUIRE(back.learn_events.size() == 1);
  const auto& got = std::get<ParamsLearned>(back.learn_events.front());
  CHECK(got.params == learned.params);
  CHECK(std::isnan(got.nis));

  actors::TickSummary summary;
  summary.tick = 7;
  summary.now_s = 210;
  summary.decisions = {sample_decision()};
  summary.incidents = {"prod/llama-70b: did not plan in time"};
  summary.planned_ms = 12.25;
  summary.done_ms = 30.5;
  summary.events = {{12, 210, storage::TickStarted{7, 210, 30}}};
  const auto summary_back = round_trip(system, summary);
  REQUIRE(summary_back.events.size() == 1);
  CHECK(summary_back.events.front().seq == 12);
  CHECK(std::get<storage::TickStarted>(summary_back.events.front().payload) == storage::TickStarted{7, 210, 30});
  CHECK(summary_back.planned_ms == 12.25);
  CHECK(summary_back.done_ms == 30.5);
  CHECK(summary_back.decisions == summary.decisions);
  CHECK(summary_back.incidents == summary.incidents);
  CHECK(summary_back.tick == 7);

  TickTime time{120.5, 30};
  const auto time_back = round_trip(system, time);
  CHECK(time_back.now_s == 120.5);
  CHECK(time_back.interval_s == 30);
}

TEST_CASE("a learn request carries its own variant of the shared observation, and a plan request all of it") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  ModelTickInput input;
  input.model = {"prod", "llama-70b"};
  input.arrival_rate_rps = 4.5;
  for (const char* name : {"a100", "h100"}) {
    VariantTickInput v;
    v.state.spec.name = name;
    v.state.current_replicas = 2;
    input.variants.push_back(v);
  }
  const auto shared = std::make_shared<const ModelTickInput>(input);
  PolicyConfig config;
  config.slo = {1500, 80};
  const auto shared_config = std::make_shared<const PolicyConfig>(config);

  const actors::LearnRequest learn{shared, 1, shared_config, {60, 30}};
  const auto learn_back = round_trip(system, learn);
  CHECK(learn_back.model_input->model == input.model);
  REQUIRE(learn_back.model_input->variants.size() == 1);  // its own variant only
  CHECK(learn_back.input().state.spec.name == "h100");
  CHECK(learn_back.config->slo.ttft_ms == 1500);
  CHECK(learn_back.time.now_s == 60);

  const actors::PlanRequest plan{shared, shared_config, {60, 30}};
  const auto plan_back = round_trip(system, plan);
  REQUIRE(plan_back.input->variants.size() == 2);
  CHECK(plan_back.input->variants[0].state.spec.name == "a100");
  CHECK(plan_back.input->arrival_rate_rps == 4.5);
  CHECK(plan_back.config->slo.itl_ms == 80);
}

TEST_CASE("a message whose bytes are not its codec's is refused, naming the message and the field") {
  auto decoded = actors::from_message_json<actors::TickSummary>(nlohmann::json{{"tick", 1}});
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("tick summary") && Catch::Contains("now_s"));
}

}  // namespace
}  // namespace capstan
