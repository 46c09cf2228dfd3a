// The records of the event store (DESIGN.md "Event sourcing"; issue 21, item 1): the
// tick's own typed events (domain/tick/tick_events.hpp) and the daemon's records around
// them, each stored as one versioned MessagePack value
//
//   {"model": {ns, model_id} | nil, "payload": {...}, "schema": 1, "time_s": t, "type": "..."}
//
// (members in nlohmann's sorted order). The payload of a tick event is the tick codec's
// own record (domain/codec/event_codec.hpp), of an observation the tick input codec's
// ModelTickInput (domain/codec/tick_input_codec.hpp), both with their own schema; the
// others are laid out below. `model` and `type` are copies of what the payload says,
// kept in the envelope so that a filter reads them without decoding the payload.
//
// A decision's, a forecast's, a capacity event's and an observation's payloads are
// written in their compact layouts, schema 2 (an array without the model and type, which
// they take from the envelope; domain/codec/decision_msgpack.hpp, sizing_msgpack.hpp,
// observation_msgpack.hpp); schema 1's objects, written before, read as they always did.
// The export line (event_to_json) shows each as schema 1's object, whatever its stored
// layout.
//
// Doubles read back bit for bit (NaN and the infinities as the codecs' tokens). Type
// names are frozen: add new types and fields, never rename. A reader refuses an unknown
// schema or type naming the field ("event 42: schema 2 is not a version ...").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"
#include "domain/tick/tick_events.hpp"
#include "domain/tick/tick_input.hpp"
#include "storage/decision_review.hpp"

namespace capstan::storage {

inline constexpr int kEventValueSchema = 1;

// A tick began: payload {interval_s, now_s, tick}.
struct TickStarted {
  std::uint64_t tick = 0;
  double now_s = 0;
  double interval_s = 0;
  bool operator==(const TickStarted&) const = default;
};

// What one model's tick used, verbatim: payload = the ModelTickInput record. Shared,
// read-only, with the tick's actors that use it (actors/messages.hpp): recording an
// observation costs no copy of it. Never null.
struct ObservationRecorded {
  std::shared_ptr<const ModelTickInput> input;
  explicit ObservationRecorded(std::shared_ptr<const ModelTickInput> shared) : input(std::move(shared)) {}
  explicit ObservationRecorded(ModelTickInput own) : input(std::make_shared<const ModelTickInput>(std::move(own))) {}
};

// config/'s effective configuration and the layer each value came from; opaque here.
// Payload {effective, origins}.
struct ConfigApplied {
  nlohmann::json effective;
  nlohmann::json origins;
  bool operator==(const ConfigApplied&) const = default;
};

// An invalid change, kept out; the last good configuration stays. Payload {error, source}.
struct ConfigRejected {
  std::string source;
  std::string error;
  bool operator==(const ConfigRejected&) const = default;
};

// What the actuator did with a decision. Payload {attempt, error, model, replicas,
// status, target, variant}; status is one of the four below.
struct ActuationRecorded {
  VariantKey variant;
  std::string status;  // "requested" | "applied" | "failed" | "acknowledged"
  int target = 0;
  int replicas = 0;
  std::string error;
  int attempt = 0;
  bool operator==(const ActuationRecorded&) const = default;
};

// Something went wrong around the tick, e.g. kind "model_timeout": a model did not answer
// in time and held its last good decision. Payload {detail, kind, model | nil}.
struct Incident {
  std::optional<ModelKey> model;
  std::string kind;
  std::string detail;
  bool operator==(const Incident&) const = default;
};

using Payload =
    std::variant<TickStarted, ObservationRecorded, ConfigApplied, ConfigRejected, ActuationRecorded, Incident, TickEvent,
                 DecisionReviewed>;

struct Event {
  std::uint64_t seq = 0;  // set by the store on append
  double time_s = 0;      // the tick's virtual or wall time
  Payload payload;
};

// "tick", "observation", "config_applied", "config_rejected", "actuation", "incident",
// the TickEvent's own name ("params_learned", ..., "decision"), or "decision_review".
std::string event_type(const Payload& payload);
// Every type name a stored value may carry, in the order above.
const std::vector<std::string>& known_event_types();
// The model the record is about, if any.
std::optional<ModelKey> event_model(const Payload& payload);
// The same two without copies, for the hot paths of the value's writer and reader.
const char* event_type_name(const Payload& payload);
const ModelKey* event_model_of(const Payload& payload);

// The stored value. Hot types (the tick's events, observations, actuations, tick) are
// written straight with MsgpackWriter; every type gives the bytes of to_msgpack(encode_event_document(e)),
// which a test checks. Decision, forecast and capacity in their newest layouts (event_value_writer.hpp).
std::string encode_event_value(const Event& event);
// The same value through the JSON tree: the reference the direct writer must match.
nlohmann::json encode_event_document(const Event& event);
// Refuses a malformed value, an unknown schema or type, naming the seq and the field.
// Reads the hot types straight from the bytes (event_value_reader.hpp), anything else
// through the tree.
Result<Event> decode_event_value(std::uint64_t seq, std::string_view bytes);

// The envelope only (type and model), read without decoding the payload: what the
// store's filters look at. Errors as decode_event_value.
struct EventHeader {
  double time_s = 0;
  std::string type;
  std::optional<ModelKey> model;
};
Result<EventHeader> decode_event_header(std::uint64_t seq, std::string_view bytes);

// The export line {"seq", "type", "time_s", "model", "payload"}; doubles as the codecs
// write them (non-finite ones as "nan", "inf", "-inf").
nlohmann::json event_to_json(const Event& event);

}  // namespace capstan::storage
