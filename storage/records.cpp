#include "storage/records.hpp"

#include <algorithm>
#include <span>
#include <type_traits>

#include "domain/codec/decision_msgpack.hpp"
#include "domain/codec/event_codec.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/sizing_msgpack.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/observation_msgpack.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"

namespace capstan::storage {
namespace {

using nlohmann::json;

constexpr const char* kActuationStatuses[] = {"requested", "applied", "failed", "acknowledged"};

const ModelKey* tick_event_model(const TickEvent& event) {
  return std::visit(
      [](const auto& e) -> const ModelKey* {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ParamsLearned> || std::is_same_v<T, ColdStartLearned>) {
          return &e.variant.model;
        } else if constexpr (std::is_same_v<T, DecisionMade>) {
          return &e.decision.model;
        } else {
          return &e.model;
        }
      },
      event);
}

json encode_optional_model(const std::optional<ModelKey>& model) {
  return model ? encode_model_key(*model) : json();
}

std::optional<ModelKey> read_optional_model(const FieldReader& r) {
  if (r.is_null()) return std::nullopt;
  return read_model_key(r);
}

json encode_payload(const TickStarted& p) {
  return {{"tick", p.tick}, {"now_s", encode_number(p.now_s)}, {"interval_s", encode_number(p.interval_s)}};
}
json encode_payload(const ObservationRecorded& p) { return encode_model_tick_input(*p.input); }
json encode_payload(const ConfigApplied& p) { return {{"effective", p.effective}, {"origins", p.origins}}; }
json encode_payload(const ConfigRejected& p) { return {{"source", p.source}, {"error", p.error}}; }
json encode_payload(const ActuationRecorded& p) {
  return {{"model", encode_model_key(p.variant.model)},
          {"variant", p.variant.variant},
          {"status", p.status},
          {"target", p.target},
          {"replicas", p.replicas},
          {"error", p.error},
          {"attempt", p.attempt}};
}
json encode_payload(const Incident& p) {
  return {{"model", encode_optional_model(p.model)}, {"kind", p.kind}, {"detail", p.detail}};
}
json encode_payload(const TickEvent& p) { return encode_event(p); }
json encode_payload(const DecisionReviewed& p) { return encode_decision_review(p); }

json encode_payload(const Payload& payload) {
  return std::visit([](const auto& p) { return encode_payload(p); }, payload);
}

// The payload as stored: a decision, forecast or capacity event in its compact layout
// (decision_msgpack.hpp, sizing_msgpack.hpp), every other type as its JSON form.
json stored_payload(const Payload& payload) {
  if (const auto* e = std::get_if<TickEvent>(&payload)) {
    if (const auto* d = std::get_if<DecisionMade>(e)) return encode_decision_compact(d->decision);
    if (const auto* f = std::get_if<ForecastMade>(e)) return encode_forecast_compact(*f);
    if (const auto* c = std::get_if<CapacitySized>(e)) return encode_capacity_compact(*c);
  }
  if (const auto* o = std::get_if<ObservationRecorded>(&payload)) return encode_observation_compact(*o->input);
  return encode_payload(payload);
}

// A compact layout's payload (an array) of a type that has one, for the envelope's model.
std::optional<Payload> read_compact(const std::string& name, const FieldReader& r, const FieldReader& model) {
  if (name != "decision" && name != "forecast" && name != "capacity" && name != "observation") return std::nullopt;
  const std::optional<ModelKey> key = read_optional_model(model);
  if (!key) model.fail(std::string("must name the model of ") + (name == "observation" ? "an " : "a ") + name + " of schema 2");
  if (name == "observation") return ObservationRecorded{read_observation_compact(r, *key)};
  if (name == "decision") return TickEvent{DecisionMade{read_decision_compact(r, *key)}};
  if (name == "forecast") return TickEvent{read_forecast_compact(r, *key)};
  return TickEvent{read_capacity_compact(r, *key)};
}

// A record embedded with its own schema, read by the codec that owns it; its error is
// carried into ours under the payload's name.
template <class T>
T read_embedded(const FieldReader& payload, Result<T> decoded) {
  if (!decoded) throw CodecError(payload.path() + " (" + decoded.error().message + ")");
  return std::move(decoded).value();
}

Payload read_payload(const FieldReader& type, const FieldReader& r, const FieldReader& model) {
  const std::string name = type.string();
  if (r.json().is_array()) {
    if (auto compact = read_compact(name, r, model)) return std::move(*compact);
  }
  if (name == "tick") {
    return TickStarted{r.at("tick").unsigned64(), r.at("now_s").number(), r.at("interval_s").number()};
  }
  if (name == "observation") {
    return ObservationRecorded{read_embedded(r, decode_model_tick_input(r.json()))};
  }
  if (name == "config_applied") {
    return ConfigApplied{r.at("effective").json(), r.at("origins").json()};
  }
  if (name == "config_rejected") return ConfigRejected{r.at("source").string(), r.at("error").string()};
  if (name == "actuation") {
    ActuationRecorded a;
    a.variant = {read_model_key(r.at("model")), r.at("variant").string()};
    const FieldReader status = r.at("status");
    a.status = status.string();
    if (std::find(std::begin(kActuationStatuses), std::end(kActuationStatuses), a.status) ==
        std::end(kActuationStatuses)) {
      status.fail("must be requested, applied, failed or acknowledged");
    }
    a.target = r.at("target").int32();
    a.replicas = r.at("replicas").int32();
    a.error = r.at("error").string();
    a.attempt = r.at("attempt").int32();
    return a;
  }
  if (name == "decision_review") return read_decision_review(r);
  if (name == "incident") return Incident{read_optional_model(r.at("model")), r.at("kind").string(), r.at("detail").string()};
  for (const char* tick_type : {"params_learned", "cold_start_learned", "forecast", "capacity", "stage", "decision"}) {
    if (name != tick_type) continue;
    if (r.json().is_array()) type.fail("does not match the payload's type (no compact layout)");
    TickEvent event = read_embedded(r, decode_event(r.json()));
    if (name != capstan::event_type(event)) type.fail("does not match the payload's type");
    return event;
  }
  type.fail("is not a known event type");
}

std::string event_what(std::uint64_t seq) { return "event " + std::to_string(seq); }

json parse_value(std::string_view bytes) {
  return json::from_msgpack(bytes.begin(), bytes.end());
}

}  // namespace

const char* event_type_name(const Payload& payload) {
  struct Name {
    const char* operator()(const TickStarted&) const { return "tick"; }
    const char* operator()(const ObservationRecorded&) const { return "observation"; }
    const char* operator()(const ConfigApplied&) const { return "config_applied"; }
    const char* operator()(const ConfigRejected&) const { return "config_rejected"; }
    const char* operator()(const ActuationRecorded&) const { return "actuation"; }
    const char* operator()(const Incident&) const { return "incident"; }
    const char* operator()(const TickEvent& e) const { return capstan::event_type(e); }
    const char* operator()(const DecisionReviewed&) const { return "decision_review"; }
  };
  return std::visit(Name{}, payload);
}

std::string event_type(const Payload& payload) { return event_type_name(payload); }

const std::vector<std::string>& known_event_types() {
  static const std::vector<std::string> kTypes = {"tick",           "observation",        "config_applied",
                                                  "config_rejected", "actuation",          "incident",
                                                  "params_learned",  "cold_start_learned", "forecast",
                                                  "capacity",        "stage",              "decision",
                                                  "decision_review"};
  return kTypes;
}

const ModelKey* event_model_of(const Payload& payload) {
  struct Model {
    const ModelKey* operator()(const TickStarted&) const { return nullptr; }
    const ModelKey* operator()(const ObservationRecorded& p) const { return &p.input->model; }
    const ModelKey* operator()(const ConfigApplied&) const { return nullptr; }
    const ModelKey* operator()(const ConfigRejected&) const { return nullptr; }
    const ModelKey* operator()(const ActuationRecorded& p) const { return &p.variant.model; }
    const ModelKey* operator()(const Incident& p) const { return p.model ? &*p.model : nullptr; }
    const ModelKey* operator()(const TickEvent& e) const { return tick_event_model(e); }
    const ModelKey* operator()(const DecisionReviewed& p) const { return &p.variant.model; }
  };
  return std::visit(Model{}, payload);
}

std::optional<ModelKey> event_model(const Payload& payload) {
  const ModelKey* model = event_model_of(payload);
  return model ? std::optional<ModelKey>(*model) : std::nullopt;
}

json encode_event_document(const Event& event) {
  return {{"schema", kEventValueSchema},
          {"type", event_type(event.payload)},
          {"time_s", encode_number(event.time_s)},
          {"model", encode_optional_model(event_model(event.payload))},
          {"payload", stored_payload(event.payload)}};
}

std::string encode_event_value(const Event& event) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(256);
  write_event_value(event, bytes);
  return std::string(bytes.begin(), bytes.end());
}

Result<Event> decode_event_value(std::uint64_t seq, std::string_view bytes) {
  try {
    return read_event_value(seq, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  } catch (const MsgpackMismatch&) {
  }
  return decode_with<Event>(event_what(seq), [&] {
    const json document = parse_value(bytes);
    const FieldReader r(document, "");
    expect_schema(r, kEventValueSchema);
    Event event;
    event.seq = seq;
    event.time_s = r.at("time_s").number();
    event.payload = read_payload(r.at("type"), r.at("payload"), r.at("model"));
    return event;
  });
}

Result<EventHeader> decode_event_header(std::uint64_t seq, std::string_view bytes) {
  // The envelope as encode_event_value lays it out; anything else is read through the
  // tree, which names what is wrong.
  try {
    MsgpackReader r(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    EventHeader header;
    r.map(5);
    r.key("model");
    if (r.next_is_null()) {
      r.null();
    } else {
      r.map(2);
      r.key("model_id");
      std::string model_id(r.string());
      r.key("ns");
      header.model = ModelKey{std::string(r.string()), std::move(model_id)};
    }
    r.key("payload");
    r.skip();
    r.key("schema");
    if (r.integer() != kEventValueSchema) throw MsgpackMismatch();
    r.key("time_s");
    header.time_s = r.number();
    r.key("type");
    header.type = r.string();
    if (!r.at_end()) throw MsgpackMismatch();
    return header;
  } catch (const MsgpackMismatch&) {
  }
  return decode_with<EventHeader>(event_what(seq), [&] {
    const json document = parse_value(bytes);
    const FieldReader r(document, "");
    expect_schema(r, kEventValueSchema);
    EventHeader header;
    header.time_s = r.at("time_s").number();
    header.type = r.at("type").string();
    header.model = read_optional_model(r.at("model"));
    r.at("payload");
    return header;
  });
}

json event_to_json(const Event& event) {
  const std::optional<ModelKey> model = event_model(event.payload);
  return {{"seq", event.seq},
          {"type", event_type(event.payload)},
          {"time_s", encode_number(event.time_s)},
          {"model", encode_optional_model(model)},
          {"payload", encode_payload(event.payload)}};
}

}  // namespace capstan::storage
