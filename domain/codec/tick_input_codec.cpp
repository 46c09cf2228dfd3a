#include "domain/codec/tick_input_codec.hpp"

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"

namespace capstan {
namespace {

using nlohmann::json;

json encode_histogram(const WindowHistogram& h) {
  return {{"upper_bounds_ms", encode_numbers(h.upper_bounds_ms)},
          {"cumulative", encode_numbers(h.cumulative)},
          {"count", encode_number(h.count)},
          {"sum_ms", encode_number(h.sum_ms)}};
}

WindowHistogram read_histogram(const FieldReader& r) {
  WindowHistogram h;
  h.upper_bounds_ms = r.at("upper_bounds_ms").numbers();
  h.cumulative = r.at("cumulative").numbers();
  h.count = r.at("count").number();
  h.sum_ms = r.at("sum_ms").number();
  return h;
}

json encode_forward_pass(const ForwardPassSample& f) {
  return {{"wall_time_ms", encode_number(f.wall_time_ms)},
          {"scheduled_prefill_tokens", encode_number(f.scheduled_prefill_tokens)},
          {"decode_kv_tokens", encode_number(f.decode_kv_tokens)},
          {"queued_requests", encode_number(f.queued_requests)},
          {"running_requests", encode_number(f.running_requests)},
          {"pod", f.pod},
          {"scheduled_prefill_requests", encode_number(f.scheduled_prefill_requests)},
          {"queued_prefill_tokens", encode_number(f.queued_prefill_tokens)},
          {"queued_decode_kv_tokens", encode_number(f.queued_decode_kv_tokens)}};
}

ForwardPassSample read_forward_pass(const FieldReader& r) {
  ForwardPassSample f;
  f.wall_time_ms = r.at("wall_time_ms").number();
  f.scheduled_prefill_tokens = r.at("scheduled_prefill_tokens").number();
  f.decode_kv_tokens = r.at("decode_kv_tokens").number();
  f.queued_requests = r.at("queued_requests").number();
  f.running_requests = r.at("running_requests").number();
  f.pod = r.at("pod").string();
  f.scheduled_prefill_requests = r.at("scheduled_prefill_requests").number();
  f.queued_prefill_tokens = r.at("queued_prefill_tokens").number();
  f.queued_decode_kv_tokens = r.at("queued_decode_kv_tokens").number();
  return f;
}

json encode_variant_input(const VariantTickInput& v) {
  json pods = json::array();
  for (const PodMetrics& p : v.state.pods) pods.push_back(encode_pod_metrics(p));
  json passes = json::array();
  for (const ForwardPassSample& f : v.forward_passes) passes.push_back(encode_forward_pass(f));
  return {{"spec", encode_variant_spec(v.state.spec)},
          {"current_replicas", v.state.current_replicas},
          {"pending_replicas", v.state.pending_replicas},
          {"desired_replicas", encode_optional(v.state.desired_replicas)},
          {"pods", std::move(pods)},
          {"forward_passes", std::move(passes)},
          {"new_cold_starts_s", encode_numbers(v.new_cold_starts_s)},
          {"configured_cold_start_s", encode_number(v.configured_cold_start_s)}};
}

VariantTickInput read_variant_input(const FieldReader& r) {
  VariantTickInput v;
  v.state.spec = read_variant_spec(r.at("spec"));
  v.state.current_replicas = r.at("current_replicas").int32();
  v.state.pending_replicas = r.at("pending_replicas").int32();
  v.state.desired_replicas = r.at("desired_replicas").optional_int32();
  const FieldReader pods = r.at("pods");
  for (std::size_t i = 0; i < pods.size(); ++i) v.state.pods.push_back(read_pod_metrics(pods.at(i)));
  const FieldReader passes = r.at("forward_passes");
  for (std::size_t i = 0; i < passes.size(); ++i) v.forward_passes.push_back(read_forward_pass(passes.at(i)));
  v.new_cold_starts_s = r.at("new_cold_starts_s").numbers();
  v.configured_cold_start_s = r.at("configured_cold_start_s").number();
  return v;
}

json encode_model_body(const ModelTickInput& m) {
  json variants = json::array();
  for (const VariantTickInput& v : m.variants) variants.push_back(encode_variant_input(v));
  return {{"model", encode_model_key(m.model)},
          {"variants", std::move(variants)},
          {"upstream_queue", encode_number(m.upstream_queue)},
          {"decode_queue", encode_number(m.decode_queue)},
          {"arrival_rate_rps", encode_number(m.arrival_rate_rps)},
          {"priority", m.priority}};
}

}  // namespace

json encode_pod_metrics(const PodMetrics& p) {
  json j = {{"pod", p.pod},
            {"arrival_rate_rps", encode_number(p.arrival_rate_rps)},
            {"avg_ttft_ms", encode_number(p.avg_ttft_ms)},
            {"avg_itl_ms", encode_number(p.avg_itl_ms)},
            {"avg_input_tokens", encode_number(p.avg_input_tokens)},
            {"avg_output_tokens", encode_number(p.avg_output_tokens)},
            {"kv_usage", encode_number(p.kv_usage)},
            {"queue_length", encode_number(p.queue_length)},
            {"running", encode_number(p.running)},
            {"ready", p.ready},
            {"seconds_since_start", encode_number(p.seconds_since_start)},
            {"sample_age_s", encode_number(p.sample_age_s)}};
  if (has_request_itl(p)) j["request_itl"] = encode_histogram(p.request_itl);
  return j;
}

bool has_request_itl(const PodMetrics& p) {
  return !p.request_itl.upper_bounds_ms.empty() || p.request_itl.count != 0 || p.request_itl.sum_ms != 0;
}

PodMetrics read_pod_metrics(const FieldReader& r) {
  PodMetrics p;
  p.pod = r.at("pod").string();
  p.arrival_rate_rps = r.at("arrival_rate_rps").number();
  p.avg_ttft_ms = r.at("avg_ttft_ms").number();
  p.avg_itl_ms = r.at("avg_itl_ms").number();
  p.avg_input_tokens = r.at("avg_input_tokens").number();
  p.avg_output_tokens = r.at("avg_output_tokens").number();
  p.kv_usage = r.at("kv_usage").number();
  p.queue_length = r.at("queue_length").number();
  p.running = r.at("running").number();
  p.ready = r.at("ready").boolean();
  p.seconds_since_start = r.at("seconds_since_start").number();
  p.sample_age_s = r.at("sample_age_s").number();
  if (r.has("request_itl")) p.request_itl = read_histogram(r.at("request_itl"));
  return p;
}

json encode_variant_spec(const VariantSpec& v) {
  return {{"name", v.name},
          {"max_batch_size", v.max_batch_size},
          {"max_queue_size", v.max_queue_size},
          {"cost_per_replica", encode_number(v.cost_per_replica)},
          {"gpus_per_replica", v.gpus_per_replica},
          {"min_replicas", v.min_replicas},
          {"max_replicas", v.max_replicas},
          {"role", to_string(v.role)},
          {"kv_capacity_tokens", encode_number(v.kv_capacity_tokens)},
          {"max_num_batched_tokens", v.max_num_batched_tokens}};
}

VariantSpec read_variant_spec(const FieldReader& r) {
  VariantSpec v;
  v.name = r.at("name").string();
  v.max_batch_size = r.at("max_batch_size").int32();
  v.max_queue_size = r.at("max_queue_size").int32();
  v.cost_per_replica = r.at("cost_per_replica").number();
  v.gpus_per_replica = r.at("gpus_per_replica").int32();
  v.min_replicas = r.at("min_replicas").int32();
  v.max_replicas = r.at("max_replicas").int32();
  const FieldReader role = r.at("role");
  if (!parse_role(role.string(), v.role)) role.fail("must be both, prefill or decode");
  v.kv_capacity_tokens = r.at("kv_capacity_tokens").number();
  v.max_num_batched_tokens = r.at("max_num_batched_tokens").int32();
  return v;
}

json encode_model_key(const ModelKey& m) { return {{"ns", m.ns}, {"model_id", m.model_id}}; }

ModelKey read_model_key(const FieldReader& r) { return {r.at("ns").string(), r.at("model_id").string()}; }

ModelTickInput read_model_tick_input(const FieldReader& r) {
  ModelTickInput m;
  m.model = read_model_key(r.at("model"));
  const FieldReader variants = r.at("variants");
  for (std::size_t i = 0; i < variants.size(); ++i) m.variants.push_back(read_variant_input(variants.at(i)));
  m.upstream_queue = r.at("upstream_queue").number();
  m.decode_queue = r.at("decode_queue").number();
  m.arrival_rate_rps = r.at("arrival_rate_rps").number();
  m.priority = r.at("priority").int32();
  return m;
}

json encode_model_tick_input(const ModelTickInput& input) {
  json j = encode_model_body(input);
  j["schema"] = kTickInputSchema;
  return j;
}

Result<ModelTickInput> decode_model_tick_input(const json& j) {
  return decode_with<ModelTickInput>("model tick input", [&] {
    const FieldReader r(j, "");
    expect_schema(r, kTickInputSchema);
    return read_model_tick_input(r);
  });
}

json encode_tick_input(const TickInput& input) {
  json models = json::array();
  for (const ModelTickInput& m : input.models) models.push_back(encode_model_body(m));
  return {{"schema", kTickInputSchema},
          {"now_s", encode_number(input.now_s)},
          {"interval_s", encode_number(input.interval_s)},
          {"models", std::move(models)}};
}

Result<TickInput> decode_tick_input(const json& j) {
  return decode_with<TickInput>("tick input", [&] {
    const FieldReader r(j, "");
    expect_schema(r, kTickInputSchema);
    TickInput input;
    input.now_s = r.at("now_s").number();
    input.interval_s = r.at("interval_s").number();
    const FieldReader models = r.at("models");
    for (std::size_t i = 0; i < models.size(); ++i) input.models.push_back(read_model_tick_input(models.at(i)));
    return input;
  });
}

json encode_tick_record(const TickRecording& record) {
  json decisions = json::array();
  for (const Decision& d : record.decisions) decisions.push_back(encode_decision(d));
  return {{"schema", kTickInputSchema},
          {"policy", record.policy},
          {"input", encode_tick_input(record.input)},
          {"decisions", std::move(decisions)}};
}

Result<TickRecording> decode_tick_record(const json& j) {
  return decode_with<TickRecording>("tick record", [&] {
    const FieldReader r(j, "");
    expect_schema(r, kTickInputSchema);
    TickRecording out;
    out.policy = r.at("policy").string();
    auto input = decode_tick_input(r.at("input").json());
    if (!input) throw CodecError("input: " + input.error().message);
    out.input = std::move(input).value();
    const FieldReader decisions = r.at("decisions");
    for (std::size_t i = 0; i < decisions.size(); ++i) out.decisions.push_back(read_decision(decisions.at(i)));
    return out;
  });
}

// A figure as {"n": name} with one of "i" (a count), "x" (a number) or "s" (a name), so
// that a count reads back as a count and a NaN as a number.
json encode_figure(const Figure& f) {
  json j{{"n", f.name}};
  if (const auto* i = std::get_if<long long>(&f.value)) {
    j["i"] = *i;
  } else if (const auto* x = std::get_if<double>(&f.value)) {
    j["x"] = encode_number(*x);
  } else {
    j["s"] = std::get<std::string>(f.value);
  }
  return j;
}

Figure read_figure(const FieldReader& r) {
  std::string name = r.at("n").string();
  if (r.has("i")) return {std::move(name), r.at("i").integer()};
  if (r.has("x")) return {std::move(name), r.at("x").number()};
  if (r.has("s")) return {std::move(name), r.at("s").string()};
  r.fail("must hold one of \"i\", \"x\" or \"s\"");
}

json encode_reason(const Reason& reason) {
  json j{{"code", to_string(reason.code)}, {"text", reason.text()}};
  if (reason.kind().empty()) return j;
  j["kind"] = reason.kind();
  json figures = json::array();
  for (const Figure& f : reason.figures()) figures.push_back(encode_figure(f));
  j["figures"] = std::move(figures);
  if (!reason.causes().empty()) {
    json causes = json::array();
    for (const Reason& c : reason.causes()) causes.push_back(encode_reason(c));
    j["causes"] = std::move(causes);
  }
  return j;
}

Reason read_reason(const FieldReader& r) {
  const FieldReader code = r.at("code");
  auto parsed = parse_reason_code(code.string());
  if (!parsed) code.fail("must be a reason code");
  Reason reason(*parsed, r.at("text").string());
  if (!r.has("kind")) return reason;
  ReasonDetail detail;
  detail.kind = r.at("kind").string();
  const FieldReader figures = r.at("figures");
  for (std::size_t i = 0; i < figures.size(); ++i) detail.figures.push_back(read_figure(figures.at(i)));
  if (r.has("causes")) {
    const FieldReader causes = r.at("causes");
    for (std::size_t i = 0; i < causes.size(); ++i) detail.causes.push_back(read_reason(causes.at(i)));
  }
  reason.detail = std::make_shared<const ReasonDetail>(std::move(detail));
  return reason;
}

json encode_decision(const Decision& d) {
  return {{"model", encode_model_key(d.model)},
          {"variant", d.variant},
          {"current_replicas", d.current_replicas},
          {"target_replicas", d.target_replicas},
          {"reason", encode_reason(d.reason)}};
}

Decision read_decision(const FieldReader& r) {
  Decision d;
  d.model = read_model_key(r.at("model"));
  d.variant = r.at("variant").string();
  d.current_replicas = r.at("current_replicas").int32();
  d.target_replicas = r.at("target_replicas").int32();
  d.reason = read_reason(r.at("reason"));
  return d;
}

}  // namespace capstan
