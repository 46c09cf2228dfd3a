// The JSON form of the actors' messages (messages.hpp), built from the domain's codecs
// (domain/codec/): what their `inspect` overloads write as MessagePack. A decoder
// refuses a malformed message naming the field, as every codec of the project does.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan {
struct TickTime;
struct VariantMemory;
namespace fleet {
struct Observed;
}
namespace actors {
struct LearnRequest;
struct LearnReply;
struct PlanRequest;
struct PlanReply;
struct SettleRequest;
struct ModelSnapshot;
struct JournalBatch;
struct JournalAck;
struct ActuationRequest;
struct ActuationReport;
struct ConfigUpdate;
struct TickSummary;
}  // namespace actors
}  // namespace capstan

namespace capstan::actors {

nlohmann::json to_message_json(const TickTime& x);
nlohmann::json to_message_json(const VariantMemory& x);
nlohmann::json to_message_json(const fleet::Observed& x);
nlohmann::json to_message_json(const LearnRequest& x);
nlohmann::json to_message_json(const LearnReply& x);
nlohmann::json to_message_json(const PlanRequest& x);
nlohmann::json to_message_json(const PlanReply& x);
nlohmann::json to_message_json(const SettleRequest& x);
nlohmann::json to_message_json(const ModelSnapshot& x);
nlohmann::json to_message_json(const JournalBatch& x);
nlohmann::json to_message_json(const JournalAck& x);
nlohmann::json to_message_json(const ActuationRequest& x);
nlohmann::json to_message_json(const ActuationReport& x);
nlohmann::json to_message_json(const ConfigUpdate& x);
nlohmann::json to_message_json(const TickSummary& x);

// A model's snapshot as the store keeps it: the MessagePack of to_message_json's document,
// written without building the tree (a snapshot tick encodes every model's; through the
// tree that was most of the tick at 10,000 models). The same bytes.
std::string encode_model_snapshot(const ModelSnapshot& x);

// Defined for each type above.
template <class T>
Result<T> from_message_json(const nlohmann::json& json);
template <>
Result<TickTime> from_message_json<TickTime>(const nlohmann::json& json);
template <>
Result<VariantMemory> from_message_json<VariantMemory>(const nlohmann::json& json);
template <>
Result<fleet::Observed> from_message_json<fleet::Observed>(const nlohmann::json& json);
template <>
Result<LearnRequest> from_message_json<LearnRequest>(const nlohmann::json& json);
template <>
Result<LearnReply> from_message_json<LearnReply>(const nlohmann::json& json);
template <>
Result<PlanRequest> from_message_json<PlanRequest>(const nlohmann::json& json);
template <>
Result<PlanReply> from_message_json<PlanReply>(const nlohmann::json& json);
template <>
Result<SettleRequest> from_message_json<SettleRequest>(const nlohmann::json& json);
template <>
Result<ModelSnapshot> from_message_json<ModelSnapshot>(const nlohmann::json& json);
template <>
Result<JournalBatch> from_message_json<JournalBatch>(const nlohmann::json& json);
template <>
Result<JournalAck> from_message_json<JournalAck>(const nlohmann::json& json);
template <>
Result<ActuationRequest> from_message_json<ActuationRequest>(const nlohmann::json& json);
template <>
Result<ActuationReport> from_message_json<ActuationReport>(const nlohmann::json& json);
template <>
Result<ConfigUpdate> from_message_json<ConfigUpdate>(const nlohmann::json& json);
template <>
Result<TickSummary> from_message_json<TickSummary>(const nlohmann::json& json);

}  // namespace capstan::actors
