// The advisory actuator's queue of decisions awaiting a person (issue 23, part 3). The
// actuator owns it (actuator.hpp): the fleet's ticks offer their decisions to it and the
// admin API's approvals and rejections reach it as messages, so one actor orders both.
//
// A decision pends when its target differs from what the variant has: the target this
// process last applied to it, else the replicas the tick observed. A newer decision for
// the same variant with another target supersedes a pending one; with the same target
// the pending one stays, id and all, so a person is not raced by every tick. A review
// (approve, reject) takes the decision out of the queue at once; it is recorded, and an
// approved one applied, at the next tick, before that tick's own decisions are offered:
// recording then keeps the store's events in time order, and nothing is applied
// before its approval is durable. A daemon that stops records them on its way out
// (daemon.cpp), as its next tick would have. Plain state, no actor: testable alone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "domain/core/result.hpp"
#include "storage/decision_review.hpp"
#include "storage/event_store.hpp"

namespace capstan::actors {

class ApprovalQueue {
 public:
  // Reviews to record and approved decisions to apply, in the order given.
  struct Due {
    std::vector<storage::DecisionReviewed> reviews;
    std::vector<Decision> approved;
  };

  // A person's word on pending decision `id`: nullopt when done (recorded at the next
  // tick), else why not (no such decision pends: never did, reviewed, or superseded).
  std::optional<std::string> review(std::uint64_t id, bool approve, const std::string& by, const std::string& reason);

  // This tick's durable decisions (`seqs[i]` the event of `decisions[i]`): the reviews
  // made since the last tick, the approved decisions to apply now, then the pending and
  // superseded reviews the new decisions cause. Empties what it returns.
  Due tick(const std::vector<Decision>& decisions, const std::vector<std::uint64_t>& seqs);

  // An approved target the connector accepted: the variant's new baseline.
  void applied(const VariantKey& variant, int target) { applied_[variant] = target; }

  std::vector<PendingDecision> pending() const;

  // The queue a store's reviews leave (a restart): every decision put up for review and
  // neither reviewed nor superseded since pends again, read back from its decision event.
  static Result<ApprovalQueue> restore(const storage::EventStore& store);

 private:
  std::map<VariantKey, PendingDecision> pending_;
  std::map<VariantKey, int> applied_;
  std::vector<storage::DecisionReviewed> reviewed_;  // since the last tick
  std::vector<Decision> approved_;
};

}  // namespace capstan::actors
