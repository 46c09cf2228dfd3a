// The recorded form of the events a tick returns (domain/tick/tick_events.hpp; DESIGN.md
// "Event sourcing"): one JSON object per event, {"schema": 1, "type": "<event_type>",
// ...its fields...}, stored as MessagePack (domain/codec/msgpack.hpp).
//
//   params_learned      model, variant, params, covariance[9], nis, accepted, source,
//                       note, accepted_updates, rejected_updates
//   cold_start_learned  model, variant, new_samples_s, estimate_s, prior_s
//   forecast            model, predictor, horizon_s, rate_rps, observed_rps,
//                       candidates [{predictor, recent_error}]
//   capacity            model, variant, slo {ttft_ms, itl_ms}, slo_source, lambda_star_rps,
//                       per_replica_rps, bound, demand_rps, required_replicas
//   stage               model, variant, stage, before, after, code
//   decision            decision (tick_input_codec.hpp's form)
//
// This is schema 1, the JSON form: what the export line and the actors' messages show,
// and how the store kept every tick event until decisions, forecasts and capacity events
// moved to their compact layouts (schema 2: decision_msgpack.hpp, sizing_msgpack.hpp).
//
// `model` is {ns, model_id} everywhere. Doubles read back bit for bit, NaN and the
// infinities included (field_reader.hpp), so replay can compare a recomputed event with
// a recorded one by value. Type names, stage names and reason codes are frozen: new
// types and fields are added, never renamed. Every field is required; an unknown
// schema, type, stage or code is refused naming the field.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "domain/core/result.hpp"
#include "domain/tick/tick_events.hpp"

namespace capstan {

inline constexpr int kEventSchema = 1;

nlohmann::json encode_event(const TickEvent& event);
Result<TickEvent> decode_event(const nlohmann::json& json);

}  // namespace capstan
