// A forecast's and a capacity event's payloads in their compact layouts, schema 2
// (issue 21: a tick's bytes; compact_layout.hpp). Schema 1 (event_codec.hpp) stored
// each as a JSON object with its member names, the model (the store's envelope holds
// it) and the type again: 378 and 349 bytes a model and a variant every tick, more than
// a quarter of a tick's bytes once decisions were compact. Schema 2, positionally:
//
//   forecast  [2, predictor, horizon_s, rate_rps, observed_rps, candidates]
//             candidates: [predictor, recent_error, predictor, recent_error, ...]
//   capacity  [2, variant, slo.ttft_ms, slo.itl_ms, slo_source, lambda_star_rps,
//              per_replica_rps, bound, demand_rps, required_replicas]
//
// Doubles as floats, every NaN as the one quiet NaN (MsgpackWriter::float_exact), so
// they read back bit for bit and equal bytes mean equal doubles. As in
// decision_msgpack.hpp: the tree's bytes and the direct writer's are the same; the
// direct reader throws MsgpackMismatch at anything but the layout as written, the tree's
// reader names the field at fault.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "domain/tick/tick_events.hpp"

namespace capstan {

class FieldReader;
class MsgpackWriter;
class MsgpackReader;

inline constexpr int kSizingLayoutSchema = 2;

nlohmann::json encode_forecast_compact(const ForecastMade& forecast);
nlohmann::json encode_capacity_compact(const CapacitySized& capacity);
// Throw CodecError naming the field, or for a schema other than 2.
ForecastMade read_forecast_compact(const FieldReader& payload, const ModelKey& model);
CapacitySized read_capacity_compact(const FieldReader& payload, const ModelKey& model);

void write_forecast_msgpack(MsgpackWriter& w, const ForecastMade& forecast);
void write_capacity_msgpack(MsgpackWriter& w, const CapacitySized& capacity);
// Throw MsgpackMismatch.
ForecastMade read_forecast_msgpack(MsgpackReader& r, const ModelKey& model);
CapacitySized read_capacity_msgpack(MsgpackReader& r, const ModelKey& model);

}  // namespace capstan
