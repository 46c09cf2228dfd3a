#include "actors/actuator_approvals.hpp"

#include <algorithm>
#include <set>

namespace capstan::actors {

namespace {
constexpr const char* kDaemon = "capstan";
}

std::optional<std::string> ApprovalQueue::review(std::uint64_t id, bool approve, const std::string& by,
                                                 const std::string& reason) {
  const auto it = std::find_if(pending_.begin(), pending_.end(), [id](const auto& p) { return p.second.id == id; });
  if (it == pending_.end())
    return "no decision " + std::to_string(id) + " awaits approval (it was reviewed, superseded, or never pended)";
  const Decision& d = it->second.decision;
  reviewed_.push_back({id, it->first, approve ? "approved" : "rejected", d.target_replicas, by, reason, 0});
  if (approve) approved_.push_back(d);
  pending_.erase(it);
  return std::nullopt;
}

ApprovalQueue::Due ApprovalQueue::tick(const std::vector<Decision>& decisions, const std::vector<std::uint64_t>& seqs) {
  Due due{std::move(reviewed_), std::move(approved_)};
  reviewed_.clear();
  approved_.clear();
  for (std::size_t i = 0; i < decisions.size() && i < seqs.size(); ++i) {
    const Decision& d = decisions[i];
    const VariantKey key{d.model, d.variant};
    const auto base = applied_.find(key);
    const int has = base != applied_.end() ? base->second : d.current_replicas;
    const auto it = pending_.find(key);
    if (it != pending_.end()) {
      if (it->second.decision.target_replicas == d.target_replicas) continue;
      due.reviews.push_back({it->second.id, key, "superseded", it->second.decision.target_replicas, kDaemon,
                             "decision " + std::to_string(seqs[i]) + " asks for " + std::to_string(d.target_replicas) +
                                 " replicas instead",
                             seqs[i]});
      pending_.erase(it);
    }
    if (d.target_replicas == has) continue;
    pending_[key] = PendingDecision{seqs[i], d};
    due.reviews.push_back({seqs[i], key, "pending", d.target_replicas, kDaemon,
                           "advisory mode: " + std::to_string(has) + " -> " + std::to_string(d.target_replicas) +
                               " replicas awaits approval",
                           0});
  }
  return due;
}

std::vector<PendingDecision> ApprovalQueue::pending() const {
  std::vector<PendingDecision> out;
  for (const auto& [key, p] : pending_) out.push_back(p);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

Result<ApprovalQueue> ApprovalQueue::restore(const storage::EventStore& store) {
  storage::EventFilter filter;
  filter.type = "decision_review";
  std::set<std::uint64_t> open;
  auto folded = store.for_each(filter, [&](const storage::Event& e) {
    const auto& r = std::get<storage::DecisionReviewed>(e.payload);
    if (r.action == "pending")
      open.insert(r.decision_seq);
    else
      open.erase(r.decision_seq);
    return true;
  });
  if (!folded.ok()) return folded.error();
  ApprovalQueue queue;
  for (std::uint64_t seq : open) {
    storage::EventFilter one;
    one.from_seq = one.to_seq = seq;
    one.type = "decision";
    auto read = store.for_each(one, [&](const storage::Event& e) {
      const Decision& d = std::get<DecisionMade>(std::get<TickEvent>(e.payload)).decision;
      queue.pending_[{d.model, d.variant}] = PendingDecision{seq, d};
      return false;
    });
    if (!read.ok()) return read.error();
    // A decision the retention dropped is long stale: it pends no more.
  }
  return queue;
}

}  // namespace capstan::actors
