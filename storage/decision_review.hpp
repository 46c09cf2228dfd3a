// What became of a decision held for approval in advisory mode (issue 23, part 3): it
// was put up for review ("pending"), a person approved or rejected it with a reason, or
// a newer decision for the same variant took its place before anyone did ("superseded").
// Stored as the event type "decision_review" (records.hpp) with a payload of its own
// schema:
//
//   {"action", "by", "decision_seq", "model", "reason", "schema": 1, "superseded_by",
//    "target_replicas", "variant"}
//
// `decision_seq` is the sequence number of the decision event reviewed: the id the
// admin API shows and takes. The events are how a restart rebuilds the queue
// (actors/actuator_approvals.hpp) and how `capstan replay timeline --type
// decision_review` shows who approved what and why. Action names are frozen.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/core/types.hpp"

namespace capstan::storage {

inline constexpr int kDecisionReviewSchema = 1;

struct DecisionReviewed {
  std::uint64_t decision_seq = 0;
  VariantKey variant;
  std::string action;  // "pending" | "approved" | "rejected" | "superseded"
  int target_replicas = 0;
  std::string by;      // who: the approver as they named themselves, or "capstan"
  std::string reason;  // why, in their words; for "superseded", which decision replaced it
  std::uint64_t superseded_by = 0;  // the newer decision's seq; 0 unless superseded
  bool operator==(const DecisionReviewed&) const = default;
};

// true for the four actions above.
bool is_review_action(const std::string& action);

nlohmann::json encode_decision_review(const DecisionReviewed& review);
// Throws CodecError naming the field at fault (an unknown schema or action, a missing field).
DecisionReviewed read_decision_review(const FieldReader& r);

}  // namespace capstan::storage
