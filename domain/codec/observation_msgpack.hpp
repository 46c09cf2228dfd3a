// An observation event's payload in its compact layout, schema 2 (issue 21: a tick's
// bytes; compact_layout.hpp). Schema 1 stored the model's ModelTickInput as
// tick_input_codec.hpp's object: every member name with every pod and every variant, the
// model again (the store's envelope holds it) and every double as a float: 559 bytes a
// one-variant model every tick, 46% of a tick's bytes once decisions, forecasts and
// capacity were compact. Schema 2, positionally:
//
//   payload  [2, priority, arrival_rate_rps, upstream_queue, decode_queue, variants]
//   variant  [name, role, cost_per_replica, gpus_per_replica, min_replicas, max_replicas,
//             max_batch_size, max_queue_size, kv_capacity_tokens, max_num_batched_tokens,
//             current_replicas, pending_replicas, desired_replicas | nil,
//             configured_cold_start_s, new_cold_starts_s, pods, forward_passes]
//   pod      [pod, ready, arrival_rate_rps, avg_ttft_ms, avg_itl_ms, avg_input_tokens,
//             avg_output_tokens, kv_usage, queue_length, running, seconds_since_start,
//             sample_age_s, request_itl | nil]
//   request_itl    [count, sum_ms, upper_bounds_ms, cumulative]
//   forward pass   [pod, wall_time_ms, scheduled_prefill_tokens, decode_kv_tokens,
//                   queued_requests, running_requests, scheduled_prefill_requests,
//                   queued_prefill_tokens, queued_decode_kv_tokens]
//
// role is to_string(Role). A double is an integer when it is a whole number an int64
// holds (not -0), else a float with every NaN as the one quiet NaN
// (MsgpackWriter::whole_or_float_exact): it reads back bit for bit, and equal bytes mean
// equal doubles. The model is the envelope's. As in decision_msgpack.hpp: the tree's
// bytes and the direct writer's are the same; the direct reader throws MsgpackMismatch at
// anything but the layout as written, the tree's reader names the field at fault
// ("payload.variants[0].pods[1].kv_usage must be a number").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "domain/tick/tick_input.hpp"

namespace capstan {

class FieldReader;
class MsgpackWriter;
class MsgpackReader;

inline constexpr int kObservationLayoutSchema = 2;

// The payload as a JSON tree (an array), the model left out.
nlohmann::json encode_observation_compact(const ModelTickInput& input);
// The payload read from the tree, for `model`; throws CodecError naming the field, or for
// a schema other than 2.
ModelTickInput read_observation_compact(const FieldReader& payload, const ModelKey& model);

// The same bytes written straight, and read straight (throws MsgpackMismatch).
void write_observation_msgpack(MsgpackWriter& w, const ModelTickInput& input);
ModelTickInput read_observation_msgpack(MsgpackReader& r, const ModelKey& model);

}  // namespace capstan
