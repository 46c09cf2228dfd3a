#include "storage/decision_review.hpp"

#include <algorithm>
#include <iterator>

#include "domain/codec/tick_input_codec.hpp"

namespace capstan::storage {

namespace {
constexpr const char* kActions[] = {"pending", "approved", "rejected", "superseded"};
}

bool is_review_action(const std::string& action) {
  return std::find(std::begin(kActions), std::end(kActions), action) != std::end(kActions);
}

nlohmann::json encode_decision_review(const DecisionReviewed& review) {
  return {{"schema", kDecisionReviewSchema},
          {"decision_seq", review.decision_seq},
          {"model", encode_model_key(review.variant.model)},
          {"variant", review.variant.variant},
          {"action", review.action},
          {"target_replicas", review.target_replicas},
          {"by", review.by},
          {"reason", review.reason},
          {"superseded_by", review.superseded_by}};
}

DecisionReviewed read_decision_review(const FieldReader& r) {
  expect_schema(r, kDecisionReviewSchema);
  DecisionReviewed out;
  out.decision_seq = r.at("decision_seq").unsigned64();
  out.variant = {read_model_key(r.at("model")), r.at("variant").string()};
  const FieldReader action = r.at("action");
  out.action = action.string();
  if (!is_review_action(out.action)) action.fail("must be pending, approved, rejected or superseded");
  out.target_replicas = r.at("target_replicas").int32();
  out.by = r.at("by").string();
  out.reason = r.at("reason").string();
  out.superseded_by = r.at("superseded_by").unsigned64();
  return out;
}

}  // namespace capstan::storage
