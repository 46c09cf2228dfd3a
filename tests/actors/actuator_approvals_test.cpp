// The advisory actuator's approval queue (actors/actuator_approvals.hpp): what pends,
// what supersedes, what a review leaves for the next tick, and the queue a store's
// reviews rebuild after a restart.
#include <catch2/catch.hpp>

#include <filesystem>

#include <unistd.h>

#include "actors/actuator_approvals.hpp"

namespace capstan::actors {
namespace {

const ModelKey kModel{"sim", "llama"};

Decision decide(const std::string& variant, int current, int target) {
  return {kModel, variant, current, target, Reason(target > current ? ReasonCode::kScaleUp : ReasonCode::kHold, "why")};
}

std::vector<std::string> actions(const ApprovalQueue::Due& due) {
  std::vector<std::string> out;
  for (const auto& r : due.reviews) out.push_back(r.action + " " + std::to_string(r.decision_seq));
  return out;
}

}  // namespace

TEST_CASE("a change pends for approval; a hold does not, and the same target keeps its id") {
  ApprovalQueue q;
  auto due = q.tick({decide("h100", 1, 3), decide("a100", 2, 2)}, {10, 11});
  CHECK(actions(due) == std::vector<std::string>{"pending 10"});
  REQUIRE(q.pending().size() == 1);
  CHECK(q.pending()[0].id == 10);
  CHECK(q.pending()[0].decision.target_replicas == 3);
  due = q.tick({decide("h100", 1, 3), decide("a100", 2, 2)}, {20, 21});
  CHECK(due.reviews.empty());
  CHECK(q.pending()[0].id == 10);
}

TEST_CASE("a newer decision with another target supersedes the pending one, naming it") {
  ApprovalQueue q;
  q.tick({decide("h100", 1, 3)}, {10});
  auto due = q.tick({decide("h100", 1, 5)}, {20});
  CHECK(actions(due) == std::vector<std::string>{"superseded 10", "pending 20"});
  CHECK(due.reviews[0].superseded_by == 20);
  CHECK(due.reviews[0].reason.find("decision 20") != std::string::npos);
  // Back to what the variant has: the pending one goes and nothing pends.
  due = q.tick({decide("h100", 1, 1)}, {30});
  CHECK(actions(due) == std::vector<std::string>{"superseded 20"});
  CHECK(q.pending().empty());
}

TEST_CASE("an approval is recorded and applied at the next tick; a rejection only recorded") {
  ApprovalQueue q;
  q.tick({decide("h100", 1, 3), decide("a100", 2, 4)}, {10, 11});
  CHECK_FALSE(q.review(10, true, "alice", "load test passed"));
  CHECK_FALSE(q.review(11, false, "bob", "budget freeze"));
  CHECK(q.pending().empty());
  const auto again = q.review(10, true, "alice", "twice");
  REQUIRE(again);
  CHECK(again->find("no decision 10") != std::string::npos);
  CHECK(q.review(99, true, "alice", "unknown"));

  auto due = q.tick({}, {});
  CHECK(actions(due) == std::vector<std::string>{"approved 10", "rejected 11"});
  CHECK(due.reviews[0].by == "alice");
  CHECK(due.reviews[0].reason == "load test passed");
  CHECK(due.reviews[1].reason == "budget freeze");
  REQUIRE(due.approved.size() == 1);
  CHECK(due.approved[0].target_replicas == 3);
  CHECK(q.tick({}, {}).reviews.empty());
}

TEST_CASE("an applied target is the variant's baseline until its replicas show it") {
  ApprovalQueue q;
  q.tick({decide("h100", 1, 3)}, {10});
  q.review(10, true, "alice", "ok");
  q.tick({}, {});
  q.applied({kModel, "h100"}, 3);
  // Still 1 ready while the new ones start: the same target pends no more.
  CHECK(q.tick({decide("h100", 1, 3)}, {20}).reviews.empty());
  CHECK(actions(q.tick({decide("h100", 1, 2)}, {30})) == std::vector<std::string>{"pending 30"});
}

TEST_CASE("a restart rebuilds the decisions still pending from the store's reviews and decisions") {
  const auto dir = std::filesystem::temp_directory_path() / ("capstan_approvals_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto store = storage::EventStore::open(dir.string(), {}).value();
    std::vector<storage::Event> events;
    for (const Decision& d : {decide("h100", 1, 3), decide("a100", 2, 4), decide("l4", 1, 2)})
      events.push_back({0, 30, TickEvent{DecisionMade{d}}});  // seqs 1, 2, 3
    REQUIRE(store->append(events, {}).ok());
    ApprovalQueue q;
    const auto record = [&](const ApprovalQueue::Due& due, double time_s) {
      std::vector<storage::Event> reviews;
      for (const auto& r : due.reviews) reviews.push_back({0, time_s, r});
      REQUIRE(store->append(reviews, {}).ok());
    };
    record(q.tick({decide("h100", 1, 3), decide("a100", 2, 4), decide("l4", 1, 2)}, {1, 2, 3}), 30);
    q.review(2, false, "bob", "no");
    record(q.tick({decide("l4", 1, 1)}, {7}), 60);  // 3 superseded: l4 holds now
  }
  auto store = storage::EventStore::open_read_only(dir.string()).value();
  auto restored = ApprovalQueue::restore(*store);
  REQUIRE(restored.ok());
  // Recorded: pending 1, 2, 3, then rejected 2 and superseded 3: 1 pends, its decision read back.
  const auto pending = restored.value().pending();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].id == 1);
  CHECK(pending[0].decision == decide("h100", 1, 3));
  std::filesystem::remove_all(dir);
}

}  // namespace capstan::actors
