#include "domain/codec/observation_msgpack.hpp"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "domain/codec/compact_layout.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using compact_layout::element;
using compact_layout::whole_or_float_exact;

// Element positions, frozen with the layout.
enum ObservationAt : std::size_t { kSchema, kPriority, kArrival, kUpstream, kDecodeQueue, kVariants, kObservationSize };
enum VariantAt : std::size_t {
  kName, kRole, kCost, kGpus, kMinReplicas, kMaxReplicas, kMaxBatch, kMaxQueue, kKvCapacity, kMaxBatchedTokens,
  kCurrent, kPending, kDesired, kColdStartPrior, kNewColdStarts, kPods, kForwardPasses, kVariantSize
};
enum PodAt : std::size_t {
  kPod, kReady, kPodArrival, kTtft, kItl, kInputTokens, kOutputTokens, kKvUsage, kQueueLength, kRunning, kSinceStart,
  kSampleAge, kRequestItl, kPodSize
};
enum HistogramAt : std::size_t { kCount, kSum, kUpperBounds, kCumulative, kHistogramSize };
enum PassAt : std::size_t {
  kPassPod, kWallTime, kPrefillTokens, kDecodeKv, kQueued, kRunningRequests, kPrefillRequests, kQueuedPrefill,
  kQueuedDecodeKv, kPassSize
};

// ---- the tree ----

json numbers(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(whole_or_float_exact(v));
  return out;
}

json pod_tree(const PodMetrics& p) {
  json itl = nullptr;
  if (has_request_itl(p)) {
    itl = json::array({whole_or_float_exact(p.request_itl.count), whole_or_float_exact(p.request_itl.sum_ms),
                       numbers(p.request_itl.upper_bounds_ms), numbers(p.request_itl.cumulative)});
  }
  return json::array({p.pod, p.ready, whole_or_float_exact(p.arrival_rate_rps), whole_or_float_exact(p.avg_ttft_ms),
                      whole_or_float_exact(p.avg_itl_ms), whole_or_float_exact(p.avg_input_tokens),
                      whole_or_float_exact(p.avg_output_tokens), whole_or_float_exact(p.kv_usage),
                      whole_or_float_exact(p.queue_length), whole_or_float_exact(p.running),
                      whole_or_float_exact(p.seconds_since_start), whole_or_float_exact(p.sample_age_s), std::move(itl)});
}

json pass_tree(const ForwardPassSample& f) {
  return json::array({f.pod, whole_or_float_exact(f.wall_time_ms), whole_or_float_exact(f.scheduled_prefill_tokens),
                      whole_or_float_exact(f.decode_kv_tokens), whole_or_float_exact(f.queued_requests),
                      whole_or_float_exact(f.running_requests), whole_or_float_exact(f.scheduled_prefill_requests),
                      whole_or_float_exact(f.queued_prefill_tokens), whole_or_float_exact(f.queued_decode_kv_tokens)});
}

json variant_tree(const VariantTickInput& v) {
  const VariantSpec& s = v.state.spec;
  json pods = json::array();
  for (const PodMetrics& p : v.state.pods) pods.push_back(pod_tree(p));
  json passes = json::array();
  for (const ForwardPassSample& f : v.forward_passes) passes.push_back(pass_tree(f));
  return json::array({s.name, to_string(s.role), whole_or_float_exact(s.cost_per_replica), s.gpus_per_replica, s.min_replicas,
                      s.max_replicas, s.max_batch_size, s.max_queue_size, whole_or_float_exact(s.kv_capacity_tokens),
                      s.max_num_batched_tokens, v.state.current_replicas, v.state.pending_replicas,
                      v.state.desired_replicas ? json(*v.state.desired_replicas) : json(nullptr),
                      whole_or_float_exact(v.configured_cold_start_s), numbers(v.new_cold_starts_s), std::move(pods),
                      std::move(passes)});
}

void expect_size(const FieldReader& r, std::size_t size, const char* fields) {
  if (!r.json().is_array()) r.fail("must be an array");
  if (r.size() != size) r.fail("must hold " + std::to_string(size) + " elements (" + fields + ")");
}

WindowHistogram read_histogram(const FieldReader& h) {
  expect_size(h, kHistogramSize, "count, sum_ms, upper_bounds_ms, cumulative");
  WindowHistogram out;
  out.count = element(h, kCount, "count").number();
  out.sum_ms = element(h, kSum, "sum_ms").number();
  out.upper_bounds_ms = element(h, kUpperBounds, "upper_bounds_ms").numbers();
  out.cumulative = element(h, kCumulative, "cumulative").numbers();
  return out;
}

PodMetrics read_pod(const FieldReader& r) {
  expect_size(r, kPodSize,
              "pod, ready, arrival_rate_rps, avg_ttft_ms, avg_itl_ms, avg_input_tokens, avg_output_tokens, kv_usage, "
              "queue_length, running, seconds_since_start, sample_age_s, request_itl");
  PodMetrics p;
  p.pod = element(r, kPod, "pod").string();
  p.ready = element(r, kReady, "ready").boolean();
  p.arrival_rate_rps = element(r, kPodArrival, "arrival_rate_rps").number();
  p.avg_ttft_ms = element(r, kTtft, "avg_ttft_ms").number();
  p.avg_itl_ms = element(r, kItl, "avg_itl_ms").number();
  p.avg_input_tokens = element(r, kInputTokens, "avg_input_tokens").number();
  p.avg_output_tokens = element(r, kOutputTokens, "avg_output_tokens").number();
  p.kv_usage = element(r, kKvUsage, "kv_usage").number();
  p.queue_length = element(r, kQueueLength, "queue_length").number();
  p.running = element(r, kRunning, "running").number();
  p.seconds_since_start = element(r, kSinceStart, "seconds_since_start").number();
  p.sample_age_s = element(r, kSampleAge, "sample_age_s").number();
  const FieldReader itl = element(r, kRequestItl, "request_itl");
  if (!itl.is_null()) p.request_itl = read_histogram(itl);
  return p;
}

ForwardPassSample read_pass(const FieldReader& r) {
  expect_size(r, kPassSize,
              "pod, wall_time_ms, scheduled_prefill_tokens, decode_kv_tokens, queued_requests, running_requests, "
              "scheduled_prefill_requests, queued_prefill_tokens, queued_decode_kv_tokens");
  ForwardPassSample f;
  f.pod = element(r, kPassPod, "pod").string();
  f.wall_time_ms = element(r, kWallTime, "wall_time_ms").number();
  f.scheduled_prefill_tokens = element(r, kPrefillTokens, "scheduled_prefill_tokens").number();
  f.decode_kv_tokens = element(r, kDecodeKv, "decode_kv_tokens").number();
  f.queued_requests = element(r, kQueued, "queued_requests").number();
  f.running_requests = element(r, kRunningRequests, "running_requests").number();
  f.scheduled_prefill_requests = element(r, kPrefillRequests, "scheduled_prefill_requests").number();
  f.queued_prefill_tokens = element(r, kQueuedPrefill, "queued_prefill_tokens").number();
  f.queued_decode_kv_tokens = element(r, kQueuedDecodeKv, "queued_decode_kv_tokens").number();
  return f;
}

VariantTickInput read_variant(const FieldReader& r) {
  expect_size(r, kVariantSize,
              "name, role, cost_per_replica, gpus_per_replica, min_replicas, max_replicas, max_batch_size, "
              "max_queue_size, kv_capacity_tokens, max_num_batched_tokens, current_replicas, pending_replicas, "
              "desired_replicas, configured_cold_start_s, new_cold_starts_s, pods, forward_passes");
  VariantTickInput v;
  VariantSpec& s = v.state.spec;
  s.name = element(r, kName, "name").string();
  const FieldReader role = element(r, kRole, "role");
  if (!parse_role(role.string(), s.role)) role.fail("must be a role (both, prefill or decode)");
  s.cost_per_replica = element(r, kCost, "cost_per_replica").number();
  s.gpus_per_replica = element(r, kGpus, "gpus_per_replica").int32();
  s.min_replicas = element(r, kMinReplicas, "min_replicas").int32();
  s.max_replicas = element(r, kMaxReplicas, "max_replicas").int32();
  s.max_batch_size = element(r, kMaxBatch, "max_batch_size").int32();
  s.max_queue_size = element(r, kMaxQueue, "max_queue_size").int32();
  s.kv_capacity_tokens = element(r, kKvCapacity, "kv_capacity_tokens").number();
  s.max_num_batched_tokens = element(r, kMaxBatchedTokens, "max_num_batched_tokens").int32();
  v.state.current_replicas = element(r, kCurrent, "current_replicas").int32();
  v.state.pending_replicas = element(r, kPending, "pending_replicas").int32();
  v.state.desired_replicas = element(r, kDesired, "desired_replicas").optional_int32();
  v.configured_cold_start_s = element(r, kColdStartPrior, "configured_cold_start_s").number();
  v.new_cold_starts_s = element(r, kNewColdStarts, "new_cold_starts_s").numbers();
  const FieldReader pods = element(r, kPods, "pods");
  if (!pods.json().is_array()) pods.fail("must be an array");
  for (std::size_t i = 0; i < pods.size(); ++i) v.state.pods.push_back(read_pod(pods.at(i)));
  const FieldReader passes = element(r, kForwardPasses, "forward_passes");
  if (!passes.json().is_array()) passes.fail("must be an array");
  for (std::size_t i = 0; i < passes.size(); ++i) v.forward_passes.push_back(read_pass(passes.at(i)));
  return v;
}

// ---- straight to and from bytes ----

void write_numbers(MsgpackWriter& w, const std::vector<double>& values) {
  w.array(values.size());
  for (double v : values) w.whole_or_float_exact(v);
}

void write_pod(MsgpackWriter& w, const PodMetrics& p) {
  w.array(kPodSize);
  w.string(p.pod);
  w.boolean(p.ready);
  w.whole_or_float_exact(p.arrival_rate_rps);
  w.whole_or_float_exact(p.avg_ttft_ms);
  w.whole_or_float_exact(p.avg_itl_ms);
  w.whole_or_float_exact(p.avg_input_tokens);
  w.whole_or_float_exact(p.avg_output_tokens);
  w.whole_or_float_exact(p.kv_usage);
  w.whole_or_float_exact(p.queue_length);
  w.whole_or_float_exact(p.running);
  w.whole_or_float_exact(p.seconds_since_start);
  w.whole_or_float_exact(p.sample_age_s);
  if (!has_request_itl(p)) return w.null();
  w.array(kHistogramSize);
  w.whole_or_float_exact(p.request_itl.count);
  w.whole_or_float_exact(p.request_itl.sum_ms);
  write_numbers(w, p.request_itl.upper_bounds_ms);
  write_numbers(w, p.request_itl.cumulative);
}

void write_pass(MsgpackWriter& w, const ForwardPassSample& f) {
  w.array(kPassSize);
  w.string(f.pod);
  w.whole_or_float_exact(f.wall_time_ms);
  w.whole_or_float_exact(f.scheduled_prefill_tokens);
  w.whole_or_float_exact(f.decode_kv_tokens);
  w.whole_or_float_exact(f.queued_requests);
  w.whole_or_float_exact(f.running_requests);
  w.whole_or_float_exact(f.scheduled_prefill_requests);
  w.whole_or_float_exact(f.queued_prefill_tokens);
  w.whole_or_float_exact(f.queued_decode_kv_tokens);
}

void write_variant(MsgpackWriter& w, const VariantTickInput& v) {
  const VariantSpec& s = v.state.spec;
  w.array(kVariantSize);
  w.string(s.name);
  w.string(to_string(s.role));
  w.whole_or_float_exact(s.cost_per_replica);
  w.integer(s.gpus_per_replica);
  w.integer(s.min_replicas);
  w.integer(s.max_replicas);
  w.integer(s.max_batch_size);
  w.integer(s.max_queue_size);
  w.whole_or_float_exact(s.kv_capacity_tokens);
  w.integer(s.max_num_batched_tokens);
  w.integer(v.state.current_replicas);
  w.integer(v.state.pending_replicas);
  if (v.state.desired_replicas) {
    w.integer(*v.state.desired_replicas);
  } else {
    w.null();
  }
  w.whole_or_float_exact(v.configured_cold_start_s);
  write_numbers(w, v.new_cold_starts_s);
  w.array(v.state.pods.size());
  for (const PodMetrics& p : v.state.pods) write_pod(w, p);
  w.array(v.forward_passes.size());
  for (const ForwardPassSample& f : v.forward_passes) write_pass(w, f);
}

std::vector<double> read_numbers(MsgpackReader& r) {
  std::vector<double> out(r.array());
  for (double& v : out) v = r.whole_or_float();
  return out;
}

void read_pod(MsgpackReader& r, PodMetrics& p) {
  r.array(kPodSize);
  p.pod = std::string(r.string());
  p.ready = r.boolean();
  p.arrival_rate_rps = r.whole_or_float();
  p.avg_ttft_ms = r.whole_or_float();
  p.avg_itl_ms = r.whole_or_float();
  p.avg_input_tokens = r.whole_or_float();
  p.avg_output_tokens = r.whole_or_float();
  p.kv_usage = r.whole_or_float();
  p.queue_length = r.whole_or_float();
  p.running = r.whole_or_float();
  p.seconds_since_start = r.whole_or_float();
  p.sample_age_s = r.whole_or_float();
  if (r.next_is_null()) return r.null();
  r.array(kHistogramSize);
  p.request_itl.count = r.whole_or_float();
  p.request_itl.sum_ms = r.whole_or_float();
  p.request_itl.upper_bounds_ms = read_numbers(r);
  p.request_itl.cumulative = read_numbers(r);
}

void read_pass(MsgpackReader& r, ForwardPassSample& f) {
  r.array(kPassSize);
  f.pod = std::string(r.string());
  f.wall_time_ms = r.whole_or_float();
  f.scheduled_prefill_tokens = r.whole_or_float();
  f.decode_kv_tokens = r.whole_or_float();
  f.queued_requests = r.whole_or_float();
  f.running_requests = r.whole_or_float();
  f.scheduled_prefill_requests = r.whole_or_float();
  f.queued_prefill_tokens = r.whole_or_float();
  f.queued_decode_kv_tokens = r.whole_or_float();
}

void read_variant(MsgpackReader& r, VariantTickInput& v) {
  VariantSpec& s = v.state.spec;
  r.array(kVariantSize);
  s.name = std::string(r.string());
  if (!parse_role(std::string(r.string()), s.role)) throw MsgpackMismatch();
  s.cost_per_replica = r.whole_or_float();
  s.gpus_per_replica = r.int32();
  s.min_replicas = r.int32();
  s.max_replicas = r.int32();
  s.max_batch_size = r.int32();
  s.max_queue_size = r.int32();
  s.kv_capacity_tokens = r.whole_or_float();
  s.max_num_batched_tokens = r.int32();
  v.state.current_replicas = r.int32();
  v.state.pending_replicas = r.int32();
  if (r.next_is_null()) {
    r.null();
  } else {
    v.state.desired_replicas = r.int32();
  }
  v.configured_cold_start_s = r.whole_or_float();
  v.new_cold_starts_s = read_numbers(r);
  v.state.pods.resize(r.array());
  for (PodMetrics& p : v.state.pods) read_pod(r, p);
  v.forward_passes.resize(r.array());
  for (ForwardPassSample& f : v.forward_passes) read_pass(r, f);
}

}  // namespace

json encode_observation_compact(const ModelTickInput& m) {
  json variants = json::array();
  for (const VariantTickInput& v : m.variants) variants.push_back(variant_tree(v));
  return json::array({kObservationLayoutSchema, m.priority, whole_or_float_exact(m.arrival_rate_rps),
                      whole_or_float_exact(m.upstream_queue), whole_or_float_exact(m.decode_queue), std::move(variants)});
}

ModelTickInput read_observation_compact(const FieldReader& p, const ModelKey& model) {
  compact_layout::expect_layout(p, kObservationLayoutSchema, "observation", kObservationSize,
                                "schema, priority, arrival_rate_rps, upstream_queue, decode_queue, variants");
  ModelTickInput m;
  m.model = model;
  m.priority = element(p, kPriority, "priority").int32();
  m.arrival_rate_rps = element(p, kArrival, "arrival_rate_rps").number();
  m.upstream_queue = element(p, kUpstream, "upstream_queue").number();
  m.decode_queue = element(p, kDecodeQueue, "decode_queue").number();
  const FieldReader variants = element(p, kVariants, "variants");
  if (!variants.json().is_array()) variants.fail("must be an array");
  for (std::size_t i = 0; i < variants.size(); ++i) m.variants.push_back(read_variant(variants.at(i)));
  return m;
}

void write_observation_msgpack(MsgpackWriter& w, const ModelTickInput& m) {
  w.array(kObservationSize);
  w.integer(kObservationLayoutSchema);
  w.integer(m.priority);
  w.whole_or_float_exact(m.arrival_rate_rps);
  w.whole_or_float_exact(m.upstream_queue);
  w.whole_or_float_exact(m.decode_queue);
  w.array(m.variants.size());
  for (const VariantTickInput& v : m.variants) write_variant(w, v);
}

ModelTickInput read_observation_msgpack(MsgpackReader& r, const ModelKey& model) {
  r.array(kObservationSize);
  if (r.integer() != kObservationLayoutSchema) throw MsgpackMismatch();
  ModelTickInput m;
  m.model = model;
  m.priority = r.int32();
  m.arrival_rate_rps = r.whole_or_float();
  m.upstream_queue = r.whole_or_float();
  m.decode_queue = r.whole_or_float();
  m.variants.resize(r.array());
  for (VariantTickInput& v : m.variants) read_variant(r, v);
  return m;
}

}  // namespace capstan
