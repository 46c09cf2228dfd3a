#include "actors/actuator.hpp"

#include <chrono>
#include <thread>

namespace capstan::actors {

namespace {

// One target through the connector, with the retries; `change` records `requested` and
// `applied` too (a failure is always recorded). True when the connector accepted it.
bool apply(ActuatorState& s, const Decision& d, bool change, std::vector<storage::ActuationRecorded>& out) {
  const VariantKey key{d.model, d.variant};
  if (change) out.push_back({key, "requested", d.target_replicas, 0, "", 0});
  double backoff_s = s.options.backoff_s;
  for (int attempt = 1;; ++attempt) {
    auto scaled = s.connector->scale(key, d.target_replicas);
    if (scaled.ok()) {
      s.applied[key] = d.target_replicas;
      if (change) out.push_back({key, "applied", d.target_replicas, scaled.value(), "", attempt});
      return true;
    }
    if (attempt > s.options.retries) {
      out.push_back({key, "failed", d.target_replicas, 0, scaled.error().message, attempt});
      return false;
    }
    // Detached: this thread is the actuator's own, so waiting blocks nothing else.
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff_s));
    backoff_s *= 2;
  }
}

ActuationReport apply_all(ActuatorState& s, const std::vector<Decision>& decisions) {
  ActuationReport report;
  for (const Decision& d : decisions) {
    const auto last = s.applied.find({d.model, d.variant});
    apply(s, d, last == s.applied.end() || last->second != d.target_replicas, report.results);
  }
  return report;
}

// Advisory: the reviews made since the last tick and those this tick's decisions cause
// are recorded first; then the approved decisions are applied.
caf::result<ActuationReport> advise(actuator_actor::stateful_pointer<ActuatorState> self, const ActuationRequest& request) {
  auto& s = self->state;
  ApprovalQueue::Due due = s.approvals.tick(request.decisions, request.decision_seqs);
  if (due.reviews.empty()) return ActuationReport{};
  JournalBatch batch;
  for (storage::DecisionReviewed& r : due.reviews) batch.events.push_back({0, request.now_s, std::move(r)});
  auto promise = self->make_response_promise<ActuationReport>();
  const caf::duration timeout{std::chrono::microseconds(static_cast<long long>(s.options.journal_timeout_s * 1e6))};
  self->request(s.journal, timeout, append_atom::value, std::move(batch))
      .then(
          [self, promise, approved = std::move(due.approved)](JournalAck&) mutable {
            ActuationReport report;
            for (const Decision& d : approved)
              if (apply(self->state, d, true, report.results))
                self->state.approvals.applied({d.model, d.variant}, d.target_replicas);
            promise.deliver(std::move(report));
          },
          // Unrecorded, nothing approved is applied: the fleet records the error as an incident.
          [promise](caf::error& err) mutable { promise.deliver(std::move(err)); });
  return promise;
}

}  // namespace

actuator_actor::behavior_type actuator_behavior(actuator_actor::stateful_pointer<ActuatorState> self,
                                                std::shared_ptr<fleet::Connector> connector, ActuatorOptions options,
                                                journal_actor journal, ApprovalQueue approvals) {
  self->state.connector = std::move(connector);
  self->state.options = options;
  self->state.journal = std::move(journal);
  self->state.approvals = std::move(approvals);
  return {
      [self](actuate_atom, const ActuationRequest& request) -> caf::result<ActuationReport> {
        if (!self->state.options.advisory) return apply_all(self->state, request.decisions);
        return advise(self, request);
      },
      [self](pending_atom) {
        return PendingDecisions{self->state.options.advisory, self->state.approvals.pending()};
      },
      [self](review_atom, const ReviewRequest& r) {
        if (!self->state.options.advisory) return ReviewReply{false, false, "the daemon is not in advisory mode"};
        auto refused = self->state.approvals.review(r.id, r.approve, r.by, r.reason);
        return refused ? ReviewReply{true, false, *refused} : ReviewReply{true, true, ""};
      },
  };
}

}  // namespace capstan::actors
