#include "storage/event_value_reader.hpp"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "domain/codec/decision_msgpack.hpp"
#include "domain/codec/event_codec.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/observation_msgpack.hpp"
#include "domain/codec/sizing_msgpack.hpp"
#include "domain/codec/tick_input_msgpack.hpp"

namespace capstan::storage {
namespace {

// Members in the writer's (sorted) order; each helper throws MsgpackMismatch when the
// bytes differ from what event_value_writer.cpp writes.

std::string text(MsgpackReader& r) { return std::string(r.string()); }

ModelKey model_key(MsgpackReader& r) {
  r.map(2);
  r.key("model_id");
  std::string model_id = text(r);
  r.key("ns");
  return {text(r), std::move(model_id)};
}

std::optional<ModelKey> optional_model_key(MsgpackReader& r) {
  if (!r.next_is_null()) return model_key(r);
  r.null();
  return std::nullopt;
}

std::vector<double> numbers(MsgpackReader& r) {
  std::vector<double> out(r.array());
  for (double& v : out) v = r.number();
  return out;
}

void schema(MsgpackReader& r) {
  r.key("schema");
  if (r.integer() != kEventSchema) throw MsgpackMismatch();
}

void type(MsgpackReader& r, std::string_view expected) {
  r.key("type");
  r.key(expected);
}

ReasonCode reason_code(MsgpackReader& r) {
  auto code = parse_reason_code(r.string());
  if (!code) throw MsgpackMismatch();
  return *code;
}

Figure figure(MsgpackReader& r) {
  r.map(2);
  const std::string_view first = r.string();
  if (first == "i") {
    const long long i = r.integer();
    r.key("n");
    return {text(r), i};
  }
  if (first != "n") throw MsgpackMismatch();
  std::string name = text(r);
  const std::string_view kind = r.string();
  if (kind == "x") return {std::move(name), r.number()};
  if (kind == "s") return {std::move(name), text(r)};
  throw MsgpackMismatch();
}

Reason reason(MsgpackReader& r) {
  const std::size_t members = r.map();
  if (members == 2) {
    r.key("code");
    const ReasonCode code = reason_code(r);
    r.key("text");
    return {code, text(r)};
  }
  if (members != 4 && members != 5) throw MsgpackMismatch();
  ReasonDetail detail;
  if (members == 5) {
    r.key("causes");
    const std::size_t n = r.array();
    if (n == 0) throw MsgpackMismatch();  // the writer leaves an empty list out
    for (std::size_t i = 0; i < n; ++i) detail.causes.push_back(reason(r));
  }
  r.key("code");
  const ReasonCode code = reason_code(r);
  r.key("figures");
  const std::size_t n = r.array();
  detail.figures.reserve(n);
  for (std::size_t i = 0; i < n; ++i) detail.figures.push_back(figure(r));
  r.key("kind");
  detail.kind = text(r);
  r.key("text");
  Reason out(code, text(r));
  out.detail = std::make_shared<const ReasonDetail>(std::move(detail));
  return out;
}

ParamsLearned params_learned(MsgpackReader& r) {
  ParamsLearned e;
  r.map(12);
  r.key("accepted");
  e.accepted = r.boolean();
  r.key("accepted_updates");
  e.accepted_updates = r.integer();
  r.key("covariance");
  r.array(e.covariance.size());
  for (double& c : e.covariance) c = r.number();
  r.key("model");
  e.variant.model = model_key(r);
  r.key("nis");
  e.nis = r.number();
  r.key("note");
  e.note = text(r);
  r.key("params");
  r.map(3);
  r.key("alpha_ms");
  e.params.alpha_ms = r.number();
  r.key("beta_ms");
  e.params.beta_ms = r.number();
  r.key("gamma_ms");
  e.params.gamma_ms = r.number();
  r.key("rejected_updates");
  e.rejected_updates = r.integer();
  schema(r);
  r.key("source");
  e.source = text(r);
  type(r, "params_learned");
  r.key("variant");
  e.variant.variant = text(r);
  return e;
}

ColdStartLearned cold_start_learned(MsgpackReader& r) {
  ColdStartLearned e;
  r.map(7);
  r.key("estimate_s");
  e.estimate_s = r.number();
  r.key("model");
  e.variant.model = model_key(r);
  r.key("new_samples_s");
  e.new_samples_s = numbers(r);
  r.key("prior_s");
  e.prior_s = r.number();
  schema(r);
  type(r, "cold_start_learned");
  r.key("variant");
  e.variant.variant = text(r);
  return e;
}

ForecastMade forecast(MsgpackReader& r, const std::optional<ModelKey>& model) {
  if (r.next_is_array()) {
    if (!model) throw MsgpackMismatch();
    return read_forecast_msgpack(r, *model);
  }
  ForecastMade e;
  r.map(8);
  r.key("candidates");
  e.candidates.resize(r.array());
  for (ForecastMade::Candidate& c : e.candidates) {
    r.map(2);
    r.key("predictor");
    c.predictor = text(r);
    r.key("recent_error");
    c.recent_error = r.number();
  }
  r.key("horizon_s");
  e.horizon_s = r.number();
  r.key("model");
  e.model = model_key(r);
  r.key("observed_rps");
  e.observed_rps = r.number();
  r.key("predictor");
  e.predictor = text(r);
  r.key("rate_rps");
  e.rate_rps = r.number();
  schema(r);
  type(r, "forecast");
  return e;
}

CapacitySized capacity(MsgpackReader& r, const std::optional<ModelKey>& model) {
  if (r.next_is_array()) {
    if (!model) throw MsgpackMismatch();
    return read_capacity_msgpack(r, *model);
  }
  CapacitySized e;
  r.map(11);
  r.key("bound");
  e.bound = text(r);
  r.key("demand_rps");
  e.demand_rps = r.number();
  r.key("lambda_star_rps");
  e.lambda_star_rps = r.number();
  r.key("model");
  e.model = model_key(r);
  r.key("per_replica_rps");
  e.per_replica_rps = r.number();
  r.key("required_replicas");
  e.required_replicas = r.int32();
  schema(r);
  r.key("slo");
  r.map(2);
  r.key("itl_ms");
  e.slo.itl_ms = r.number();
  r.key("ttft_ms");
  e.slo.ttft_ms = r.number();
  r.key("slo_source");
  e.slo_source = text(r);
  type(r, "capacity");
  r.key("variant");
  e.variant = text(r);
  return e;
}

Stage stage_of(std::string_view name) {
  for (Stage s : {Stage::kMetricGuard, Stage::kStepLimit, Stage::kPdBand, Stage::kEnforcer, Stage::kBudget}) {
    if (name == to_string(s)) return s;
  }
  throw MsgpackMismatch();
}

StageApplied stage(MsgpackReader& r) {
  StageApplied e;
  r.map(8);
  r.key("after");
  e.after = r.int32();
  r.key("before");
  e.before = r.int32();
  r.key("code");
  e.code = reason_code(r);
  r.key("model");
  e.model = model_key(r);
  schema(r);
  r.key("stage");
  e.stage = stage_of(r.string());
  type(r, "stage");
  r.key("variant");
  e.variant = text(r);
  return e;
}

// Schema 1's object, or schema 2's array (decision_msgpack.hpp), whose model is the
// envelope's.
DecisionMade decision(MsgpackReader& r, const std::optional<ModelKey>& model) {
  if (r.next_is_array()) {
    if (!model) throw MsgpackMismatch();
    return {read_decision_msgpack(r, *model)};
  }
  DecisionMade e;
  Decision& d = e.decision;
  r.map(3);
  r.key("decision");
  r.map(5);
  r.key("current_replicas");
  d.current_replicas = r.int32();
  r.key("model");
  d.model = model_key(r);
  r.key("reason");
  d.reason = reason(r);
  r.key("target_replicas");
  d.target_replicas = r.int32();
  r.key("variant");
  d.variant = text(r);
  schema(r);
  type(r, "decision");
  return e;
}

TickStarted tick(MsgpackReader& r) {
  TickStarted p;
  r.map(3);
  r.key("interval_s");
  p.interval_s = r.number();
  r.key("now_s");
  p.now_s = r.number();
  r.key("tick");
  const std::int64_t n = r.integer();
  if (n < 0) throw MsgpackMismatch();
  p.tick = static_cast<std::uint64_t>(n);
  return p;
}

ActuationRecorded actuation(MsgpackReader& r) {
  ActuationRecorded p;
  r.map(7);
  r.key("attempt");
  p.attempt = r.int32();
  r.key("error");
  p.error = text(r);
  r.key("model");
  p.variant.model = model_key(r);
  r.key("replicas");
  p.replicas = r.int32();
  r.key("status");
  p.status = text(r);
  if (p.status != "requested" && p.status != "applied" && p.status != "failed" && p.status != "acknowledged") {
    throw MsgpackMismatch();
  }
  r.key("target");
  p.target = r.int32();
  r.key("variant");
  p.variant.variant = text(r);
  return p;
}

Incident incident(MsgpackReader& r) {
  Incident p;
  r.map(3);
  r.key("detail");
  p.detail = text(r);
  r.key("kind");
  p.kind = text(r);
  r.key("model");
  p.model = optional_model_key(r);
  return p;
}

ConfigRejected config_rejected(MsgpackReader& r) {
  ConfigRejected p;
  r.map(2);
  r.key("error");
  p.error = text(r);
  r.key("source");
  p.source = text(r);
  return p;
}

Payload payload(std::string_view type_name, MsgpackReader& r, const std::optional<ModelKey>& model) {
  if (type_name == "observation") {
    if (!r.next_is_array()) return ObservationRecorded{read_model_tick_input_msgpack(r)};
    if (!model) throw MsgpackMismatch();
    return ObservationRecorded{read_observation_msgpack(r, *model)};
  }
  if (type_name == "params_learned") return TickEvent{params_learned(r)};
  if (type_name == "capacity") return TickEvent{capacity(r, model)};
  if (type_name == "decision") return TickEvent{decision(r, model)};
  if (type_name == "actuation") return actuation(r);
  if (type_name == "stage") return TickEvent{stage(r)};
  if (type_name == "forecast") return TickEvent{forecast(r, model)};
  if (type_name == "cold_start_learned") return TickEvent{cold_start_learned(r)};
  if (type_name == "tick") return tick(r);
  if (type_name == "incident") return incident(r);
  if (type_name == "config_rejected") return config_rejected(r);
  throw MsgpackMismatch();  // config_applied, or unknown: the tree reads them
}

// Where the payload ends, read from the envelope's end: its last members are fixed but
// for the time's encoding and the type's length, "schema" 1 "time_s" <number> "type"
// <name>. A type name is ASCII, so the first byte from the end at or above 0x80 is its
// string's header; the 15 bytes of "schema" 1 "time_s" occur once within the up to nine
// bytes a number takes before "type". Only a guess: read_event_value reads everything
// from it forward again and drops the guess at the first byte that disagrees.
std::optional<std::size_t> payload_end_from_tail(std::span<const std::uint8_t> bytes) {
  static constexpr std::uint8_t kTypeKey[] = {0xA4, 't', 'y', 'p', 'e'};
  static constexpr std::uint8_t kSchemaAndTimeKeys[] = {0xA6, 's', 'c', 'h', 'e', 'm', 'a', kEventValueSchema,
                                                        0xA6, 't', 'i', 'm', 'e', '_', 's'};
  std::size_t name_at = bytes.size();
  while (name_at > 0 && bytes[name_at - 1] < 0x80) --name_at;
  if (name_at == 0 || bytes[name_at - 1] != (0xA0 | (bytes.size() - name_at)) || bytes.size() - name_at > 31) return std::nullopt;
  const std::size_t type_key_at = name_at - 1 - sizeof kTypeKey;
  if (name_at < 1 + sizeof kTypeKey || std::memcmp(bytes.data() + type_key_at, kTypeKey, sizeof kTypeKey) != 0) return std::nullopt;
  for (std::size_t number_bytes = 1; number_bytes <= 9; ++number_bytes) {
    if (type_key_at < number_bytes + sizeof kSchemaAndTimeKeys) break;
    const std::size_t keys_at = type_key_at - number_bytes - sizeof kSchemaAndTimeKeys;
    if (std::memcmp(bytes.data() + keys_at, kSchemaAndTimeKeys, sizeof kSchemaAndTimeKeys) == 0) return keys_at;
  }
  return std::nullopt;
}

// The envelope's members after the payload, from `r` at the payload's end.
std::string_view read_tail(MsgpackReader& r, double& time_s) {
  r.key("schema");
  if (r.integer() != kEventValueSchema) throw MsgpackMismatch();
  r.key("time_s");
  time_s = r.number();
  r.key("type");
  const std::string_view type_name = r.string();
  if (!r.at_end()) throw MsgpackMismatch();
  return type_name;
}

}  // namespace

Event read_event_value(std::uint64_t seq, std::span<const std::uint8_t> bytes) {
  MsgpackReader r(bytes);
  r.map(5);
  r.key("model");
  const std::optional<ModelKey> model = optional_model_key(r);
  r.key("payload");
  const std::size_t payload_at = r.position();
  Event event;
  event.seq = seq;
  const auto read_payload = [&](std::size_t payload_end, std::string_view type_name) {
    MsgpackReader p(bytes.subspan(payload_at, payload_end - payload_at));
    event.payload = payload(type_name, p, model);
    const ModelKey* payload_model = event_model_of(event.payload);
    const bool same_model = payload_model ? model && *model == *payload_model : !model;
    if (!p.at_end() || !same_model) throw MsgpackMismatch();
  };
  // The type comes after the payload in the envelope's order. Stepping over the payload
  // to reach it was a tenth of the reader's time: the payload's end is found from the
  // envelope's end instead, and the payload read by the type found there. What this
  // accepts is what the step over the payload accepts (the payload read whole up to
  // that end is one value, the members after it read as before); anything else is left
  // to the step over the payload below.
  if (const auto payload_end = payload_end_from_tail(bytes); payload_end && *payload_end >= payload_at) {
    try {
      MsgpackReader tail(bytes.subspan(*payload_end));
      read_payload(*payload_end, read_tail(tail, event.time_s));
      return event;
    } catch (const MsgpackMismatch&) {
    }
  }
  r.skip();
  const std::size_t payload_end = r.position();
  read_payload(payload_end, read_tail(r, event.time_s));
  return event;
}

std::optional<EventTail> read_event_tail(std::span<const std::uint8_t> bytes) {
  const auto payload_end = payload_end_from_tail(bytes);
  if (!payload_end) return std::nullopt;
  try {
    MsgpackReader r(bytes.subspan(*payload_end));
    EventTail tail;
    tail.type = read_tail(r, tail.time_s);
    return tail;
  } catch (const MsgpackMismatch&) {
    return std::nullopt;
  }
}

int payload_schema(std::span<const std::uint8_t> bytes) {
  try {
    MsgpackReader r(bytes);
    r.map(5);
    r.key("model");
    r.skip();
    r.key("payload");
    if (!r.next_is_array()) return 1;
    r.array();
    return static_cast<int>(r.integer());
  } catch (const MsgpackMismatch&) {
    return 0;
  }
}

}  // namespace capstan::storage
