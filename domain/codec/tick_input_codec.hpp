// The recorded form of what a tick sees (DESIGN.md "Event sourcing": the `observation`
// event): a TickInput or one ModelTickInput, per-pod metrics and forward passes
// verbatim, as JSON (and so as MessagePack through nlohmann::json::to_msgpack).
//
// Verbatim means nothing is validated beyond types: a NaN pod metric, a negative rate or
// a stale sample is recorded and read back as it was, because the tick must see on
// replay exactly what it saw live (field_reader.hpp says how doubles round-trip). A
// field of the wrong type, or a missing one, is refused with its path. Every record
// carries `schema`; a reader refuses a version it does not know.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/decision.hpp"
#include "domain/core/result.hpp"
#include "domain/tick/tick_input.hpp"

namespace capstan {

inline constexpr int kTickInputSchema = 1;

nlohmann::json encode_tick_input(const TickInput& input);
Result<TickInput> decode_tick_input(const nlohmann::json& json);

nlohmann::json encode_model_tick_input(const ModelTickInput& input);
Result<ModelTickInput> decode_model_tick_input(const nlohmann::json& json);

// The parts, for records that embed them (no schema of their own).
nlohmann::json encode_pod_metrics(const PodMetrics& pod);
nlohmann::json encode_variant_spec(const VariantSpec& spec);
nlohmann::json encode_model_key(const ModelKey& model);
// Whether a pod's per-request ITL histogram is written: most pods of most fleets export
// none, and the record leaves it out then.
bool has_request_itl(const PodMetrics& pod);
class FieldReader;
PodMetrics read_pod_metrics(const FieldReader& r);
VariantSpec read_variant_spec(const FieldReader& r);
ModelKey read_model_key(const FieldReader& r);
ModelTickInput read_model_tick_input(const FieldReader& r);

// One tick of a recorded run (`simulate --record`, one JSON line each): the policy,
// what it saw and what it decided.
struct TickRecording {
  std::string policy;
  TickInput input;
  std::vector<Decision> decisions;
};
nlohmann::json encode_tick_record(const TickRecording& record);
Result<TickRecording> decode_tick_record(const nlohmann::json& json);

// A Decision, reason code by name.
// A reason with its kind, figures and causes; a reason without a kind (text only) is
// written as {code, text} and reads back as such.
nlohmann::json encode_reason(const Reason& reason);
Reason read_reason(const FieldReader& r);
nlohmann::json encode_decision(const Decision& decision);
Decision read_decision(const FieldReader& r);

}  // namespace capstan
