#include "domain/codec/tick_input_msgpack.hpp"

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "domain/codec/msgpack.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan {
namespace {

// Members are written in the order nlohmann::json keeps an object's keys (sorted), every
// double as encode_number puts it in the tree (float_or_token), every int as an integer,
// so that the bytes are to_msgpack's of tick_input_codec.cpp's document; the test of
// this file compares the two on every recorded input.

// ---- writing ----

void write_numbers(MsgpackWriter& w, const std::vector<double>& values) {
  w.array(values.size());
  for (double v : values) w.float_or_token(v);
}

void write_histogram(MsgpackWriter& w, const WindowHistogram& h) {
  w.map(4);
  w.string("count");
  w.float_or_token(h.count);
  w.string("cumulative");
  write_numbers(w, h.cumulative);
  w.string("sum_ms");
  w.float_or_token(h.sum_ms);
  w.string("upper_bounds_ms");
  write_numbers(w, h.upper_bounds_ms);
}

void write_pod(MsgpackWriter& w, const PodMetrics& p) {
  const bool itl = has_request_itl(p);
  w.map(itl ? 13 : 12);
  w.string("arrival_rate_rps");
  w.float_or_token(p.arrival_rate_rps);
  w.string("avg_input_tokens");
  w.float_or_token(p.avg_input_tokens);
  w.string("avg_itl_ms");
  w.float_or_token(p.avg_itl_ms);
  w.string("avg_output_tokens");
  w.float_or_token(p.avg_output_tokens);
  w.string("avg_ttft_ms");
  w.float_or_token(p.avg_ttft_ms);
  w.string("kv_usage");
  w.float_or_token(p.kv_usage);
  w.string("pod");
  w.string(p.pod);
  w.string("queue_length");
  w.float_or_token(p.queue_length);
  w.string("ready");
  w.boolean(p.ready);
  if (itl) {
    w.string("request_itl");
    write_histogram(w, p.request_itl);
  }
  w.string("running");
  w.float_or_token(p.running);
  w.string("sample_age_s");
  w.float_or_token(p.sample_age_s);
  w.string("seconds_since_start");
  w.float_or_token(p.seconds_since_start);
}

void write_forward_pass(MsgpackWriter& w, const ForwardPassSample& f) {
  w.map(9);
  w.string("decode_kv_tokens");
  w.float_or_token(f.decode_kv_tokens);
  w.string("pod");
  w.string(f.pod);
  w.string("queued_decode_kv_tokens");
  w.float_or_token(f.queued_decode_kv_tokens);
  w.string("queued_prefill_tokens");
  w.float_or_token(f.queued_prefill_tokens);
  w.string("queued_requests");
  w.float_or_token(f.queued_requests);
  w.string("running_requests");
  w.float_or_token(f.running_requests);
  w.string("scheduled_prefill_requests");
  w.float_or_token(f.scheduled_prefill_requests);
  w.string("scheduled_prefill_tokens");
  w.float_or_token(f.scheduled_prefill_tokens);
  w.string("wall_time_ms");
  w.float_or_token(f.wall_time_ms);
}

void write_spec(MsgpackWriter& w, const VariantSpec& v) {
  w.map(10);
  w.string("cost_per_replica");
  w.float_or_token(v.cost_per_replica);
  w.string("gpus_per_replica");
  w.integer(v.gpus_per_replica);
  w.string("kv_capacity_tokens");
  w.float_or_token(v.kv_capacity_tokens);
  w.string("max_batch_size");
  w.integer(v.max_batch_size);
  w.string("max_num_batched_tokens");
  w.integer(v.max_num_batched_tokens);
  w.string("max_queue_size");
  w.integer(v.max_queue_size);
  w.string("max_replicas");
  w.integer(v.max_replicas);
  w.string("min_replicas");
  w.integer(v.min_replicas);
  w.string("name");
  w.string(v.name);
  w.string("role");
  w.string(to_string(v.role));
}

void write_variant(MsgpackWriter& w, const VariantTickInput& v) {
  w.map(8);
  w.string("configured_cold_start_s");
  w.float_or_token(v.configured_cold_start_s);
  w.string("current_replicas");
  w.integer(v.state.current_replicas);
  w.string("desired_replicas");
  if (v.state.desired_replicas) {
    w.integer(*v.state.desired_replicas);
  } else {
    w.null();
  }
  w.string("forward_passes");
  w.array(v.forward_passes.size());
  for (const ForwardPassSample& f : v.forward_passes) write_forward_pass(w, f);
  w.string("new_cold_starts_s");
  write_numbers(w, v.new_cold_starts_s);
  w.string("pending_replicas");
  w.integer(v.state.pending_replicas);
  w.string("pods");
  w.array(v.state.pods.size());
  for (const PodMetrics& p : v.state.pods) write_pod(w, p);
  w.string("spec");
  write_spec(w, v.state.spec);
}

// ---- reading: the same layout, or MsgpackMismatch ----

std::string text(MsgpackReader& r) { return std::string(r.string()); }

std::vector<double> read_numbers(MsgpackReader& r) {
  std::vector<double> out(r.array());
  for (double& v : out) v = r.number();
  return out;
}

WindowHistogram read_histogram(MsgpackReader& r) {
  WindowHistogram h;
  r.map(4);
  r.key("count");
  h.count = r.number();
  r.key("cumulative");
  h.cumulative = read_numbers(r);
  r.key("sum_ms");
  h.sum_ms = r.number();
  r.key("upper_bounds_ms");
  h.upper_bounds_ms = read_numbers(r);
  return h;
}

void read_pod(MsgpackReader& r, PodMetrics& p) {
  const std::size_t members = r.map();
  if (members != 12 && members != 13) throw MsgpackMismatch();
  r.key("arrival_rate_rps");
  p.arrival_rate_rps = r.number();
  r.key("avg_input_tokens");
  p.avg_input_tokens = r.number();
  r.key("avg_itl_ms");
  p.avg_itl_ms = r.number();
  r.key("avg_output_tokens");
  p.avg_output_tokens = r.number();
  r.key("avg_ttft_ms");
  p.avg_ttft_ms = r.number();
  r.key("kv_usage");
  p.kv_usage = r.number();
  r.key("pod");
  p.pod = text(r);
  r.key("queue_length");
  p.queue_length = r.number();
  r.key("ready");
  p.ready = r.boolean();
  if (members == 13) {
    r.key("request_itl");
    p.request_itl = read_histogram(r);
  }
  r.key("running");
  p.running = r.number();
  r.key("sample_age_s");
  p.sample_age_s = r.number();
  r.key("seconds_since_start");
  p.seconds_since_start = r.number();
}

void read_forward_pass(MsgpackReader& r, ForwardPassSample& f) {
  r.map(9);
  r.key("decode_kv_tokens");
  f.decode_kv_tokens = r.number();
  r.key("pod");
  f.pod = text(r);
  r.key("queued_decode_kv_tokens");
  f.queued_decode_kv_tokens = r.number();
  r.key("queued_prefill_tokens");
  f.queued_prefill_tokens = r.number();
  r.key("queued_requests");
  f.queued_requests = r.number();
  r.key("running_requests");
  f.running_requests = r.number();
  r.key("scheduled_prefill_requests");
  f.scheduled_prefill_requests = r.number();
  r.key("scheduled_prefill_tokens");
  f.scheduled_prefill_tokens = r.number();
  r.key("wall_time_ms");
  f.wall_time_ms = r.number();
}

VariantSpec read_spec(MsgpackReader& r) {
  VariantSpec v;
  r.map(10);
  r.key("cost_per_replica");
  v.cost_per_replica = r.number();
  r.key("gpus_per_replica");
  v.gpus_per_replica = r.int32();
  r.key("kv_capacity_tokens");
  v.kv_capacity_tokens = r.number();
  r.key("max_batch_size");
  v.max_batch_size = r.int32();
  r.key("max_num_batched_tokens");
  v.max_num_batched_tokens = r.int32();
  r.key("max_queue_size");
  v.max_queue_size = r.int32();
  r.key("max_replicas");
  v.max_replicas = r.int32();
  r.key("min_replicas");
  v.min_replicas = r.int32();
  r.key("name");
  v.name = text(r);
  r.key("role");
  if (!parse_role(text(r), v.role)) throw MsgpackMismatch();
  return v;
}

void read_variant(MsgpackReader& r, VariantTickInput& v) {
  r.map(8);
  r.key("configured_cold_start_s");
  v.configured_cold_start_s = r.number();
  r.key("current_replicas");
  v.state.current_replicas = r.int32();
  r.key("desired_replicas");
  if (r.next_is_null()) {
    r.null();
  } else {
    v.state.desired_replicas = r.int32();
  }
  r.key("forward_passes");
  v.forward_passes.resize(r.array());
  for (ForwardPassSample& f : v.forward_passes) read_forward_pass(r, f);
  r.key("new_cold_starts_s");
  v.new_cold_starts_s = read_numbers(r);
  r.key("pending_replicas");
  v.state.pending_replicas = r.int32();
  r.key("pods");
  v.state.pods.resize(r.array());
  for (PodMetrics& p : v.state.pods) read_pod(r, p);
  r.key("spec");
  v.state.spec = read_spec(r);
}

}  // namespace

void write_model_tick_input_msgpack(MsgpackWriter& w, const ModelTickInput& m) {
  w.map(7);
  w.string("arrival_rate_rps");
  w.float_or_token(m.arrival_rate_rps);
  w.string("decode_queue");
  w.float_or_token(m.decode_queue);
  w.string("model");
  w.map(2);
  w.string("model_id");
  w.string(m.model.model_id);
  w.string("ns");
  w.string(m.model.ns);
  w.string("priority");
  w.integer(m.priority);
  w.string("schema");
  w.integer(kTickInputSchema);
  w.string("upstream_queue");
  w.float_or_token(m.upstream_queue);
  w.string("variants");
  w.array(m.variants.size());
  for (const VariantTickInput& v : m.variants) write_variant(w, v);
}

ModelTickInput read_model_tick_input_msgpack(MsgpackReader& r) {
  ModelTickInput m;
  r.map(7);
  r.key("arrival_rate_rps");
  m.arrival_rate_rps = r.number();
  r.key("decode_queue");
  m.decode_queue = r.number();
  r.key("model");
  r.map(2);
  r.key("model_id");
  m.model.model_id = text(r);
  r.key("ns");
  m.model.ns = text(r);
  r.key("priority");
  m.priority = r.int32();
  r.key("schema");
  if (r.integer() != kTickInputSchema) throw MsgpackMismatch();
  r.key("upstream_queue");
  m.upstream_queue = r.number();
  r.key("variants");
  m.variants.resize(r.array());
  for (VariantTickInput& v : m.variants) read_variant(r, v);
  return m;
}

std::vector<std::uint8_t> encode_model_tick_input_msgpack(const ModelTickInput& input) {
  std::vector<std::uint8_t> out;
  MsgpackWriter w(out);
  write_model_tick_input_msgpack(w, input);
  return out;
}

Result<ModelTickInput> decode_model_tick_input_msgpack(std::span<const std::uint8_t> bytes) {
  try {
    MsgpackReader r(bytes);
    ModelTickInput m = read_model_tick_input_msgpack(r);
    if (r.at_end()) return m;
  } catch (const MsgpackMismatch&) {
    // Not in this writer's layout: the JSON reader decides, and names what is wrong.
  }
  auto json = from_msgpack_bytes(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  if (!json.ok()) return json.error();
  return decode_model_tick_input(json.value());
}

}  // namespace capstan
