#include "domain/core/decision.hpp"

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

namespace capstan {
namespace {

struct CodeName {
  ReasonCode code;
  const char* name;
};

constexpr std::array<CodeName, 15> kCodeNames{{
    {ReasonCode::kHold, "hold"},
    {ReasonCode::kScaleUp, "scale_up"},
    {ReasonCode::kScaleDown, "scale_down"},
    {ReasonCode::kScaleToZero, "scale_to_zero"},
    {ReasonCode::kScaleFromZero, "scale_from_zero"},
    {ReasonCode::kMinReplicas, "min_replicas"},
    {ReasonCode::kMaxReplicas, "max_replicas"},
    {ReasonCode::kKeepOneReplica, "keep_one_replica"},
    {ReasonCode::kBudgetLimited, "budget_limited"},
    {ReasonCode::kCooldown, "cooldown"},
    {ReasonCode::kPendingGuard, "pending_guard"},
    {ReasonCode::kTransitioning, "transitioning"},
    {ReasonCode::kMetricsMissing, "metrics_missing"},
    {ReasonCode::kNoCapacityData, "no_capacity_data"},
    {ReasonCode::kPdBand, "pd_band"},
}};

// ModelKey's own serialisation belongs to the shared JSON file; a decision writes its
// model inline so that this file stands alone.
nlohmann::json model_json(const ModelKey& model) {
  return {{"ns", model.ns}, {"model_id", model.model_id}};
}

}  // namespace

const char* to_string(ReasonCode code) {
  for (const auto& entry : kCodeNames) {
    if (entry.code == code) return entry.name;
  }
  return "hold";
}

Result<ReasonCode> parse_reason_code(std::string_view name) {
  for (const auto& entry : kCodeNames) {
    if (name == entry.name) return entry.code;
  }
  std::string known;
  for (const auto& entry : kCodeNames) known += (known.empty() ? "" : ", ") + std::string(entry.name);
  return invalid_argument("reason code must be one of " + known + "; got \"" + std::string(name) +
                          "\"");
}

ScalingRequest hold(std::string variant, int current_replicas, ReasonCode code, std::string text) {
  return {std::move(variant), current_replicas, current_replicas, {code, std::move(text)}};
}

ScalingRequest hold(std::string variant, int current_replicas, Reason reason) {
  return {std::move(variant), current_replicas, current_replicas, std::move(reason)};
}

std::string describe_change(int current_replicas, int target_replicas) {
  const std::string from = std::to_string(current_replicas);
  const std::string to = std::to_string(target_replicas);
  if (target_replicas > current_replicas) return "scale up " + from + " -> " + to;
  if (target_replicas < current_replicas) return "scale down " + from + " -> " + to;
  return "hold at " + from;
}

ReasonCode direction_code(int current_replicas, int target_replicas) {
  if (target_replicas > current_replicas) return ReasonCode::kScaleUp;
  if (target_replicas < current_replicas) return ReasonCode::kScaleDown;
  return ReasonCode::kHold;
}

Decision to_decision(const ModelKey& model, const ScalingRequest& request) {
  return {model, request.variant, request.current_replicas, request.target_replicas,
          request.reason};
}

void to_json(nlohmann::json& j, const Reason& reason) {
  j = {{"code", to_string(reason.code)}, {"text", reason.text()}};
}

void from_json(const nlohmann::json& j, Reason& reason) {
  const auto name = j.at("code").get<std::string>();
  auto code = parse_reason_code(name);
  if (!code.ok()) throw nlohmann::json::other_error::create(501, code.error().message, &j);
  reason = Reason(code.value(), j.at("text").get<std::string>());
}

void to_json(nlohmann::json& j, const ScalingRequest& request) {
  j = {{"variant", request.variant},
       {"current_replicas", request.current_replicas},
       {"target_replicas", request.target_replicas},
       {"reason", request.reason}};
}

void from_json(const nlohmann::json& j, ScalingRequest& request) {
  request.variant = j.at("variant").get<std::string>();
  request.current_replicas = j.at("current_replicas").get<int>();
  request.target_replicas = j.at("target_replicas").get<int>();
  request.reason = j.at("reason").get<Reason>();
}

void to_json(nlohmann::json& j, const Decision& decision) {
  j = {{"model", model_json(decision.model)},
       {"variant", decision.variant},
       {"current_replicas", decision.current_replicas},
       {"target_replicas", decision.target_replicas},
       {"reason", decision.reason}};
}

void from_json(const nlohmann::json& j, Decision& decision) {
  const auto& model = j.at("model");
  decision.model.ns = model.at("ns").get<std::string>();
  decision.model.model_id = model.at("model_id").get<std::string>();
  decision.variant = j.at("variant").get<std::string>();
  decision.current_replicas = j.at("current_replicas").get<int>();
  decision.target_replicas = j.at("target_replicas").get<int>();
  decision.reason = j.at("reason").get<Reason>();
}

Result<Decision> parse_decision(const nlohmann::json& j) {
  try {
    return j.get<Decision>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("decision JSON is invalid: ") + e.what());
  }
}

}  // namespace capstan
