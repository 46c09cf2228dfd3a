// The decision vocabulary every policy shares (DESIGN.md "The tick, as data"; seed 002
// "Pipeline stages"): an analyzer or optimizer asks for one variant's replica count with
// a ScalingRequest; the enforcer turns the requests of a model into Decisions. Each
// carries one Reason: a stable code a program can match on and one sentence a person
// can read ("scale up 2 -> 3: KV usage 0.86 above threshold 0.80 on 2 of 2 replicas").
//
// The code names are part of the event format: add new codes at the end, never rename.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/reason.hpp"
#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

// What one policy stage asks for one variant.
struct ScalingRequest {
  std::string variant;
  int current_replicas = 0;
  int target_replicas = 0;
  Reason reason;

  bool operator==(const ScalingRequest&) const = default;
};

// The outcome of a tick for one variant of one model: what the actuator applies.
struct Decision {
  ModelKey model;
  std::string variant;
  int current_replicas = 0;
  int target_replicas = 0;
  Reason reason;

  bool operator==(const Decision&) const = default;
};

// A hold: target = current, with the given code and sentence.
ScalingRequest hold(std::string variant, int current_replicas, ReasonCode code, std::string text);
// A hold for the given reason.
ScalingRequest hold(std::string variant, int current_replicas, Reason reason);

// "scale up 2 -> 3" / "scale down 3 -> 2" / "hold at 2": the start of most reason texts.
std::string describe_change(int current_replicas, int target_replicas);

// kScaleUp, kScaleDown or kHold by the direction of the change.
ReasonCode direction_code(int current_replicas, int target_replicas);

Decision to_decision(const ModelKey& model, const ScalingRequest& request);

// JSON, for events and the admin API. from_json throws nlohmann::json exceptions (as
// nlohmann's own conversions do) on a missing field or an unknown reason code.
void to_json(nlohmann::json& j, const Reason& reason);
void from_json(const nlohmann::json& j, Reason& reason);
void to_json(nlohmann::json& j, const ScalingRequest& request);
void from_json(const nlohmann::json& j, ScalingRequest& request);
void to_json(nlohmann::json& j, const Decision& decision);
void from_json(const nlohmann::json& j, Decision& decision);

// As from_json, but errors as values naming what was wrong.
Result<Decision> parse_decision(const nlohmann::json& j);

}  // namespace capstan
