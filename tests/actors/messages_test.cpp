// actors/messages.hpp: every message goes through CAF's own serializer and back unchanged
// (its `inspect` is the codec's MessagePack), and a damaged one is refused by name.
#include <catch2/catch.hpp>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "actors/messages.hpp"
#include "domain/core/reason.hpp"

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
  const auto summary_back = round_trip(system, summary);
  CHECK(summary_back.decisions == summary.decisions);
  CHECK(summary_back.incidents == summary.incidents);
  CHECK(summary_back.tick == 7);

  TickTime time{120.5, 30};
  const auto time_back = round_trip(system, time);
  CHECK(time_back.now_s == 120.5);
  CHECK(time_back.interval_s == 30);
}

TEST_CASE("a message whose bytes are not its codec's is refused, naming the message and the field") {
  auto decoded = actors::from_message_json<actors::TickSummary>(nlohmann::json{{"tick", 1}});
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("tick summary") && Catch::Contains("now_s"));
}

}  // namespace
}  // namespace capstan
