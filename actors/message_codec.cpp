#include "actors/message_codec.hpp"

#include "actors/messages.hpp"
#include "domain/codec/event_codec.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/policy_config_codec.hpp"
#include "domain/codec/state_codec.hpp"
#include "domain/codec/state_msgpack.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan::actors {

using nlohmann::json;

namespace {

// Every message read goes through one FieldReader at the root, so an error names the
// message and the path of the field.
template <class T, class Read>
Result<T> read_message(const char* what, const json& j, Read&& read) {
  return decode_with<T>(what, [&] { return read(FieldReader(j, "")); });
}

template <class T>
T value_or_throw(Result<T> result, const FieldReader& at) {
  if (!result.ok()) at.fail(result.error().message);
  return std::move(result).value();
}

json encode_events(const std::vector<TickEvent>& events) {
  json out = json::array();
  for (const TickEvent& e : events) out.push_back(encode_event(e));
  return out;
}

std::vector<TickEvent> read_events(const FieldReader& r) {
  std::vector<TickEvent> out;
  for (std::size_t i = 0; i < r.size(); ++i) out.push_back(value_or_throw(decode_event(r.at(i).json()), r.at(i)));
  return out;
}

json encode_decisions(const std::vector<Decision>& decisions) {
  json out = json::array();
  for (const Decision& d : decisions) out.push_back(encode_decision(d));
  return out;
}

std::vector<Decision> read_decisions(const FieldReader& r) {
  std::vector<Decision> out;
  for (std::size_t i = 0; i < r.size(); ++i) out.push_back(read_decision(r.at(i)));
  return out;
}

json encode_time(const TickTime& t) { return {{"now_s", encode_number(t.now_s)}, {"interval_s", encode_number(t.interval_s)}}; }
TickTime read_time(const FieldReader& r) { return {r.at("now_s").number(), r.at("interval_s").number()}; }

json encode_config(const PolicyConfig& c) { return encode_policy_config(c); }
PolicyConfig read_config(const FieldReader& r) { return value_or_throw(decode_policy_config(r.json()), r); }

json encode_view(const VariantView& v) {
  const VariantWorkload& w = v.workload;
  return {{"variant", v.variant},
          {"learned", encode_variant_memory(v.learned)},
          {"tuning",
           {{"source", v.tuning.source},
            {"accepted", v.tuning.accepted},
            {"nis", encode_number(v.tuning.nis)},
            {"reason", v.tuning.reason}}},
          {"workload",
           {{"total_arrival_rps", encode_number(w.total_arrival_rps)},
            {"avg_input_tokens", encode_number(w.avg_input_tokens)},
            {"avg_output_tokens", encode_number(w.avg_output_tokens)},
            {"avg_ttft_ms", encode_number(w.avg_ttft_ms)},
            {"avg_itl_ms", encode_number(w.avg_itl_ms)},
            {"busy_pods", w.busy_pods}}}};
}

VariantView read_view(const FieldReader& r) {
  VariantView v;
  v.variant = r.at("variant").string();
  v.learned = read_variant_memory(r.at("learned"));
  const FieldReader t = r.at("tuning");
  v.tuning.source = t.at("source").string();
  v.tuning.accepted = t.at("accepted").boolean();
  v.tuning.nis = t.at("nis").number();
  v.tuning.reason = t.at("reason").string();
  const FieldReader w = r.at("workload");
  v.workload.total_arrival_rps = w.at("total_arrival_rps").number();
  v.workload.avg_input_tokens = w.at("avg_input_tokens").number();
  v.workload.avg_output_tokens = w.at("avg_output_tokens").number();
  v.workload.avg_ttft_ms = w.at("avg_ttft_ms").number();
  v.workload.avg_itl_ms = w.at("avg_itl_ms").number();
  v.workload.busy_pods = w.at("busy_pods").int32();
  return v;
}

json encode_proposal(const ModelProposal& p) {
  json band_raised = json::array();
  for (bool b : p.band_raised) band_raised.push_back(b);
  return {{"model", encode_model_key(p.model)},
          {"priority", p.priority},
          {"decisions", encode_decisions(p.decisions)},
          {"gpus_per_replica", p.gpus_per_replica},
          {"min_replicas", p.min_replicas},
          {"band_raised", band_raised},
          {"band", p.band ? encode_reason(*p.band) : json(nullptr)}};
}

ModelProposal read_proposal(const FieldReader& r) {
  ModelProposal p;
  p.model = read_model_key(r.at("model"));
  p.priority = r.at("priority").int32();
  p.decisions = read_decisions(r.at("decisions"));
  const FieldReader gpus = r.at("gpus_per_replica");
  for (std::size_t i = 0; i < gpus.size(); ++i) p.gpus_per_replica.push_back(gpus.at(i).int32());
  const FieldReader mins = r.at("min_replicas");
  for (std::size_t i = 0; i < mins.size(); ++i) p.min_replicas.push_back(mins.at(i).int32());
  const FieldReader raised = r.at("band_raised");
  for (std::size_t i = 0; i < raised.size(); ++i) p.band_raised.push_back(raised.at(i).boolean());
  if (!r.at("band").is_null()) p.band = read_reason(r.at("band"));
  return p;
}

json encode_store_event(const storage::Event& e) {
  const std::string bytes = storage::encode_event_value(e);
  return {{"seq", e.seq}, {"value", json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()))}};
}

storage::Event read_store_event(const FieldReader& r) {
  const auto& bin = r.at("value").json().get_binary();
  const std::string bytes(bin.begin(), bin.end());
  return value_or_throw(storage::decode_event_value(r.at("seq").unsigned64(), bytes), r);
}

json encode_store_events(const std::vector<storage::Event>& events) {
  json out = json::array();
  for (const storage::Event& e : events) out.push_back(encode_store_event(e));
  return out;
}

std::vector<storage::Event> read_store_events(const FieldReader& r) {
  std::vector<storage::Event> out;
  for (std::size_t i = 0; i < r.size(); ++i) out.push_back(read_store_event(r.at(i)));
  return out;
}

}  // namespace

json to_message_json(const TickTime& x) { return encode_time(x); }
template <>
Result<TickTime> from_message_json<TickTime>(const json& j) {
  return read_message<TickTime>("tick time", j, read_time);
}

json to_message_json(const VariantMemory& x) { return encode_variant_memory(x); }
template <>
Result<VariantMemory> from_message_json<VariantMemory>(const json& j) {
  return read_message<VariantMemory>("variant memory", j, [](const FieldReader& r) { return read_variant_memory(r); });
}

json to_message_json(const fleet::Observed& x) {
  return {{"input", encode_tick_input(x.input)}, {"more", x.more}, {"last", x.last}};
}
template <>
Result<fleet::Observed> from_message_json<fleet::Observed>(const json& j) {
  return read_message<fleet::Observed>("observed", j, [](const FieldReader& r) {
    return fleet::Observed{value_or_throw(decode_tick_input(r.at("input").json()), r.at("input")), r.at("more").boolean(),
                           r.at("last").boolean()};
  });
}

// On the wire a learn request carries its own variant only.
json to_message_json(const LearnRequest& x) {
  ModelTickInput one;
  one.model = x.model_input->model;
  one.variants.push_back(x.input());
  return {{"input", encode_model_tick_input(one)}, {"config", encode_config(*x.config)}, {"time", encode_time(x.time)}};
}
template <>
Result<LearnRequest> from_message_json<LearnRequest>(const json& j) {
  return read_message<LearnRequest>("learn request", j, [](const FieldReader& r) {
    ModelTickInput one = value_or_throw(decode_model_tick_input(r.at("input").json()), r.at("input"));
    if (one.variants.size() != 1) r.at("input").fail("must hold exactly one variant");
    return LearnRequest{std::make_shared<const ModelTickInput>(std::move(one)), 0,
                        std::make_shared<const PolicyConfig>(read_config(r.at("config"))), read_time(r.at("time"))};
  });
}

json to_message_json(const LearnReply& x) { return {{"view", encode_view(x.view)}, {"events", encode_events(x.events)}}; }
template <>
Result<LearnReply> from_message_json<LearnReply>(const json& j) {
  return read_message<LearnReply>("learn reply", j, [](const FieldReader& r) {
    return LearnReply{read_view(r.at("view")), read_events(r.at("events"))};
  });
}

json to_message_json(const PlanRequest& x) {
  return {{"input", encode_model_tick_input(*x.input)}, {"config", encode_config(*x.config)}, {"time", encode_time(x.time)}};
}
template <>
Result<PlanRequest> from_message_json<PlanRequest>(const json& j) {
  return read_message<PlanRequest>("plan request", j, [](const FieldReader& r) {
    return PlanRequest{
        std::make_shared<const ModelTickInput>(value_or_throw(decode_model_tick_input(r.at("input").json()), r.at("input"))),
        std::make_shared<const PolicyConfig>(read_config(r.at("config"))), read_time(r.at("time"))};
  });
}

json to_message_json(const PlanReply& x) {
  return {{"proposal", encode_proposal(x.proposal)},
          {"learn_events", encode_events(x.learn_events)},
          {"plan_events", encode_events(x.plan_events)}};
}
template <>
Result<PlanReply> from_message_json<PlanReply>(const json& j) {
  return read_message<PlanReply>("plan reply", j, [](const FieldReader& r) {
    return PlanReply{read_proposal(r.at("proposal")), read_events(r.at("learn_events")), read_events(r.at("plan_events"))};
  });
}

json to_message_json(const SettleRequest& x) {
  return {{"decisions", encode_decisions(x.decisions)}, {"unapplied", x.unapplied}};
}
template <>
Result<SettleRequest> from_message_json<SettleRequest>(const json& j) {
  return read_message<SettleRequest>("settle request", j, [](const FieldReader& r) {
    return SettleRequest{read_decisions(r.at("decisions")), r.at("unapplied").boolean()};
  });
}

json to_message_json(const ModelSnapshot& x) {
  json variants = json::array();
  for (const auto& [name, memory] : x.variants) variants.push_back({{"variant", name}, {"memory", encode_variant_memory(memory)}});
  return {{"policy", x.policy},
          {"model", encode_model_key(x.model)},
          {"state", encode_model_state(x.state)},
          {"variants", variants}};
}
std::string encode_model_snapshot(const ModelSnapshot& x) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(512 + 1024 * x.variants.size());
  MsgpackWriter w(bytes);
  w.map(4);  // members in the order the JSON document keeps them (sorted)
  w.string("model");
  w.map(2);
  w.string("model_id");
  w.string(x.model.model_id);
  w.string("ns");
  w.string(x.model.ns);
  w.string("policy");
  w.string(x.policy);
  w.string("state");
  write_model_state_msgpack(w, x.state);
  w.string("variants");
  w.array(x.variants.size());
  for (const auto& [name, memory] : x.variants) {
    w.map(2);
    w.string("memory");
    write_variant_memory_msgpack(w, memory);
    w.string("variant");
    w.string(name);
  }
  return std::string(bytes.begin(), bytes.end());
}

template <>
Result<ModelSnapshot> from_message_json<ModelSnapshot>(const json& j) {
  return read_message<ModelSnapshot>("model snapshot", j, [](const FieldReader& r) {
    ModelSnapshot s;
    s.policy = r.at("policy").string();
    s.model = read_model_key(r.at("model"));
    s.state = read_model_state(r.at("state"), s.policy);
    const FieldReader vs = r.at("variants");
    for (std::size_t i = 0; i < vs.size(); ++i)
      s.variants.emplace(vs.at(i).at("variant").string(), read_variant_memory(vs.at(i).at("memory")));
    return s;
  });
}

json to_message_json(const JournalBatch& x) {
  json snapshots = json::array();
  for (const storage::Snapshot& s : x.snapshots)
    snapshots.push_back({{"scope", s.scope},
                         {"seq", s.seq},
                         {"time_s", encode_number(s.time_s)},
                         {"bytes", json::binary(std::vector<std::uint8_t>(s.bytes.begin(), s.bytes.end()))}});
  json retention = nullptr;
  if (x.retention)
    retention = {{"max_age_s", encode_number(x.retention->max_age_s)},
                 {"max_bytes", x.retention->max_bytes},
                 {"now_s", encode_number(x.retention->now_s)}};
  return {{"events", encode_store_events(x.events)}, {"snapshots", snapshots}, {"retention", retention}};
}
template <>
Result<JournalBatch> from_message_json<JournalBatch>(const json& j) {
  return read_message<JournalBatch>("journal batch", j, [](const FieldReader& r) {
    JournalBatch b;
    b.events = read_store_events(r.at("events"));
    const FieldReader snapshots = r.at("snapshots");
    for (std::size_t i = 0; i < snapshots.size(); ++i) {
      const FieldReader s = snapshots.at(i);
      const auto& bin = s.at("bytes").json().get_binary();
      b.snapshots.push_back({s.at("scope").string(), s.at("seq").unsigned64(), s.at("time_s").number(),
                             std::string(bin.begin(), bin.end())});
    }
    if (const FieldReader r2 = r.at("retention"); !r2.is_null())
      b.retention = storage::RetentionPolicy{r2.at("max_age_s").number(), r2.at("max_bytes").unsigned64(),
                                             r2.at("now_s").number()};
    return b;
  });
}

json to_message_json(const JournalAck& x) {
  return {{"first_seq", x.first_seq}, {"last_seq", x.last_seq}, {"events", encode_store_events(x.events)}};
}
template <>
Result<JournalAck> from_message_json<JournalAck>(const json& j) {
  return read_message<JournalAck>("journal ack", j, [](const FieldReader& r) {
    return JournalAck{r.at("first_seq").unsigned64(), r.at("last_seq").unsigned64(), read_store_events(r.at("events"))};
  });
}

json to_message_json(const ActuationRequest& x) {
  return {{"decisions", encode_decisions(x.decisions)}, {"decision_seqs", x.decision_seqs}, {"now_s", encode_number(x.now_s)}};
}
template <>
Result<ActuationRequest> from_message_json<ActuationRequest>(const json& j) {
  return read_message<ActuationRequest>("actuation request", j, [](const FieldReader& r) {
    ActuationRequest a;
    a.decisions = read_decisions(r.at("decisions"));
    const FieldReader seqs = r.at("decision_seqs");
    for (std::size_t i = 0; i < seqs.size(); ++i) a.decision_seqs.push_back(seqs.at(i).unsigned64());
    a.now_s = r.at("now_s").number();
    return a;
  });
}

json to_message_json(const ActuationReport& x) {
  json results = json::array();
  for (const storage::ActuationRecorded& a : x.results) results.push_back(encode_store_event({0, 0, a}));
  return {{"results", results}};
}
template <>
Result<ActuationReport> from_message_json<ActuationReport>(const json& j) {
  return read_message<ActuationReport>("actuation report", j, [](const FieldReader& r) {
    ActuationReport a;
    const FieldReader results = r.at("results");
    for (std::size_t i = 0; i < results.size(); ++i) {
      storage::Event e = read_store_event(results.at(i));
      const auto* recorded = std::get_if<storage::ActuationRecorded>(&e.payload);
      if (recorded == nullptr) results.at(i).fail("must be an actuation");
      a.results.push_back(*recorded);
    }
    return a;
  });
}

json to_message_json(const ConfigUpdate& x) {
  json models = json::array();
  for (const auto& [key, config] : x.models) models.push_back({{"model", encode_model_key(key)}, {"config", encode_config(config)}});
  return {{"policy", x.policy}, {"fleet", encode_config(x.fleet)}, {"models", models}, {"any_model", x.any_model},
          {"await_approval", x.await_approval}, {"applied", x.applied}};
}
template <>
Result<ConfigUpdate> from_message_json<ConfigUpdate>(const json& j) {
  return read_message<ConfigUpdate>("config update", j, [](const FieldReader& r) {
    ConfigUpdate u;
    u.policy = r.at("policy").string();
    u.fleet = read_config(r.at("fleet"));
    const FieldReader models = r.at("models");
    for (std::size_t i = 0; i < models.size(); ++i)
      u.models.emplace(read_model_key(models.at(i).at("model")), read_config(models.at(i).at("config")));
    u.any_model = r.at("any_model").boolean();
    // Recorded since advisory mode settles unapplied; a store from before has none.
    u.await_approval = r.has("await_approval") && r.at("await_approval").boolean();
    u.applied = r.at("applied").json();
    return u;
  });
}

json to_message_json(const TickSummary& x) {
  return {{"tick", x.tick},           {"now_s", encode_number(x.now_s)}, {"more", x.more},
          {"last", x.last},           {"decisions", encode_decisions(x.decisions)},
          {"incidents", x.incidents}, {"last_seq", x.last_seq},
          {"phases_ms", {encode_number(x.observed_ms), encode_number(x.planned_ms), encode_number(x.durable_ms),
                         encode_number(x.done_ms)}},
          {"events", encode_store_events(x.events)}};
}
template <>
Result<TickSummary> from_message_json<TickSummary>(const json& j) {
  return read_message<TickSummary>("tick summary", j, [](const FieldReader& r) {
    TickSummary s;
    s.tick = r.at("tick").unsigned64();
    s.now_s = r.at("now_s").number();
    s.more = r.at("more").boolean();
    s.last = r.at("last").boolean();
    s.decisions = read_decisions(r.at("decisions"));
    const FieldReader incidents = r.at("incidents");
    for (std::size_t i = 0; i < incidents.size(); ++i) s.incidents.push_back(incidents.at(i).string());
    s.last_seq = r.at("last_seq").unsigned64();
    const FieldReader phases = r.at("phases_ms");
    double* into[] = {&s.observed_ms, &s.planned_ms, &s.durable_ms, &s.done_ms};
    if (phases.size() != std::size(into)) phases.fail("expected 4 numbers");
    for (std::size_t i = 0; i < std::size(into); ++i) *into[i] = phases.at(i).number();
    s.events = read_store_events(r.at("events"));
    return s;
  });
}

}  // namespace capstan::actors
