#include "storage/event_value_writer.hpp"

#include "domain/codec/decision_msgpack.hpp"
#include "domain/codec/event_codec.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/observation_msgpack.hpp"
#include "domain/codec/sizing_msgpack.hpp"
#include "domain/codec/tick_input_msgpack.hpp"

namespace capstan::storage {
namespace {

// Every object below lists its members in sorted order, as nlohmann::json keeps them.

void number(MsgpackWriter& w, double v) { w.float_or_token(v); }

void numbers(MsgpackWriter& w, const auto& values) {
  w.array(values.size());
  for (double v : values) number(w, v);
}

void model_key(MsgpackWriter& w, const ModelKey& m) {
  w.map(2);
  w.string("model_id");
  w.string(m.model_id);
  w.string("ns");
  w.string(m.ns);
}

void optional_model_key(MsgpackWriter& w, const ModelKey* m) {
  if (m) {
    model_key(w, *m);
  } else {
    w.null();
  }
}

void through_json(MsgpackWriter& w, const nlohmann::json& j) { w.raw(nlohmann::json::to_msgpack(j)); }

// The tail every tick event's record ends with after its own members up to "schema".
void schema_and_type(MsgpackWriter& w, const char* type) {
  w.string("schema");
  w.integer(kEventSchema);
  w.string("type");
  w.string(type);
}

void figure(MsgpackWriter& w, const Figure& f) {
  w.map(2);
  if (const auto* i = std::get_if<long long>(&f.value)) {
    w.string("i");
    w.integer(*i);
    w.string("n");
    w.string(f.name);
  } else if (const auto* x = std::get_if<double>(&f.value)) {
    w.string("n");
    w.string(f.name);
    w.string("x");
    number(w, *x);
  } else {
    w.string("n");
    w.string(f.name);
    w.string("s");
    w.string(std::get<std::string>(f.value));
  }
}

void reason(MsgpackWriter& w, const Reason& r) {
  if (r.kind().empty()) {
    w.map(2);
    w.string("code");
    w.string(to_string(r.code));
    w.string("text");
    w.string(r.text());
    return;
  }
  const bool has_causes = !r.causes().empty();
  w.map(has_causes ? 5 : 4);
  if (has_causes) {
    w.string("causes");
    w.array(r.causes().size());
    for (const Reason& c : r.causes()) reason(w, c);
  }
  w.string("code");
  w.string(to_string(r.code));
  w.string("figures");
  w.array(r.figures().size());
  for (const Figure& f : r.figures()) figure(w, f);
  w.string("kind");
  w.string(r.kind());
  w.string("text");
  w.string(r.text());
}

void tick_event(MsgpackWriter& w, const ParamsLearned& e) {
  w.map(12);
  w.string("accepted");
  w.boolean(e.accepted);
  w.string("accepted_updates");
  w.integer(e.accepted_updates);
  w.string("covariance");
  numbers(w, e.covariance);
  w.string("model");
  model_key(w, e.variant.model);
  w.string("nis");
  number(w, e.nis);
  w.string("note");
  w.string(e.note);
  w.string("params");
  w.map(3);
  w.string("alpha_ms");
  number(w, e.params.alpha_ms);
  w.string("beta_ms");
  number(w, e.params.beta_ms);
  w.string("gamma_ms");
  number(w, e.params.gamma_ms);
  w.string("rejected_updates");
  w.integer(e.rejected_updates);
  w.string("schema");
  w.integer(kEventSchema);
  w.string("source");
  w.string(e.source);
  w.string("type");
  w.string("params_learned");
  w.string("variant");
  w.string(e.variant.variant);
}

void tick_event(MsgpackWriter& w, const ColdStartLearned& e) {
  w.map(7);
  w.string("estimate_s");
  number(w, e.estimate_s);
  w.string("model");
  model_key(w, e.variant.model);
  w.string("new_samples_s");
  numbers(w, e.new_samples_s);
  w.string("prior_s");
  number(w, e.prior_s);
  schema_and_type(w, "cold_start_learned");
  w.string("variant");
  w.string(e.variant.variant);
}

// Schema 1's objects of forecast, capacity and decision, written until their compact
// layouts; for `replay verify` of the stores written then.
void tick_event(MsgpackWriter& w, const ForecastMade& e) {
  w.map(8);
  w.string("candidates");
  w.array(e.candidates.size());
  for (const ForecastMade::Candidate& c : e.candidates) {
    w.map(2);
    w.string("predictor");
    w.string(c.predictor);
    w.string("recent_error");
    number(w, c.recent_error);
  }
  w.string("horizon_s");
  number(w, e.horizon_s);
  w.string("model");
  model_key(w, e.model);
  w.string("observed_rps");
  number(w, e.observed_rps);
  w.string("predictor");
  w.string(e.predictor);
  w.string("rate_rps");
  number(w, e.rate_rps);
  schema_and_type(w, "forecast");
}

void tick_event(MsgpackWriter& w, const CapacitySized& e) {
  w.map(11);
  w.string("bound");
  w.string(e.bound);
  w.string("demand_rps");
  number(w, e.demand_rps);
  w.string("lambda_star_rps");
  number(w, e.lambda_star_rps);
  w.string("model");
  model_key(w, e.model);
  w.string("per_replica_rps");
  number(w, e.per_replica_rps);
  w.string("required_replicas");
  w.integer(e.required_replicas);
  w.string("schema");
  w.integer(kEventSchema);
  w.string("slo");
  w.map(2);
  w.string("itl_ms");
  number(w, e.slo.itl_ms);
  w.string("ttft_ms");
  number(w, e.slo.ttft_ms);
  w.string("slo_source");
  w.string(e.slo_source);
  w.string("type");
  w.string("capacity");
  w.string("variant");
  w.string(e.variant);
}

void tick_event(MsgpackWriter& w, const StageApplied& e) {
  w.map(8);
  w.string("after");
  w.integer(e.after);
  w.string("before");
  w.integer(e.before);
  w.string("code");
  w.string(to_string(e.code));
  w.string("model");
  model_key(w, e.model);
  w.string("schema");
  w.integer(kEventSchema);
  w.string("stage");
  w.string(to_string(e.stage));
  w.string("type");
  w.string("stage");
  w.string("variant");
  w.string(e.variant);
}

void decision_schema1(MsgpackWriter& w, const DecisionMade& e) {
  const Decision& d = e.decision;
  w.map(3);
  w.string("decision");
  w.map(5);
  w.string("current_replicas");
  w.integer(d.current_replicas);
  w.string("model");
  model_key(w, d.model);
  w.string("reason");
  reason(w, d.reason);
  w.string("target_replicas");
  w.integer(d.target_replicas);
  w.string("variant");
  w.string(d.variant);
  schema_and_type(w, "decision");
}

// A type with a compact layout in it unless schema 1 is asked for.
void payload(MsgpackWriter& w, const TickEvent& e, int payload_schema) {
  const bool schema1 = payload_schema == 1;
  std::visit([&](const auto& x) {
    using X = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<X, DecisionMade>) {
      schema1 ? decision_schema1(w, x) : write_decision_msgpack(w, x.decision);
    } else if constexpr (std::is_same_v<X, ForecastMade>) {
      schema1 ? tick_event(w, x) : write_forecast_msgpack(w, x);
    } else if constexpr (std::is_same_v<X, CapacitySized>) {
      schema1 ? tick_event(w, x) : write_capacity_msgpack(w, x);
    } else {
      tick_event(w, x);
    }
  }, e);
}

void payload(MsgpackWriter& w, const TickStarted& p) {
  w.map(3);
  w.string("interval_s");
  number(w, p.interval_s);
  w.string("now_s");
  number(w, p.now_s);
  w.string("tick");
  w.unsigned_integer(p.tick);
}

// Schema 1 is the tick input codec's own record, written until the compact layout.
void payload(MsgpackWriter& w, const ObservationRecorded& p, int payload_schema) {
  if (payload_schema == 1) return write_model_tick_input_msgpack(w, *p.input);
  write_observation_msgpack(w, *p.input);
}

void payload(MsgpackWriter& w, const ConfigApplied& p) {
  w.map(2);
  w.string("effective");
  through_json(w, p.effective);
  w.string("origins");
  through_json(w, p.origins);
}

void payload(MsgpackWriter& w, const ConfigRejected& p) {
  w.map(2);
  w.string("error");
  w.string(p.error);
  w.string("source");
  w.string(p.source);
}

void payload(MsgpackWriter& w, const ActuationRecorded& p) {
  w.map(7);
  w.string("attempt");
  w.integer(p.attempt);
  w.string("error");
  w.string(p.error);
  w.string("model");
  model_key(w, p.variant.model);
  w.string("replicas");
  w.integer(p.replicas);
  w.string("status");
  w.string(p.status);
  w.string("target");
  w.integer(p.target);
  w.string("variant");
  w.string(p.variant.variant);
}

void payload(MsgpackWriter& w, const Incident& p) {
  w.map(3);
  w.string("detail");
  w.string(p.detail);
  w.string("kind");
  w.string(p.kind);
  w.string("model");
  optional_model_key(w, p.model ? &*p.model : nullptr);
}

// Rare (a person's review): through the tree, which is the reference layout anyway.
void payload(MsgpackWriter& w, const DecisionReviewed& p) { through_json(w, encode_decision_review(p)); }

}  // namespace

void write_event_value(const Event& event, std::vector<std::uint8_t>& out, int payload_schema) {
  MsgpackWriter w(out);
  w.map(5);
  w.string("model");
  optional_model_key(w, event_model_of(event.payload));
  w.string("payload");
  if (const auto* e = std::get_if<TickEvent>(&event.payload)) {
    payload(w, *e, payload_schema);
  } else if (const auto* o = std::get_if<ObservationRecorded>(&event.payload)) {
    payload(w, *o, payload_schema);
  } else {
    std::visit([&](const auto& p) {
      using P = std::decay_t<decltype(p)>;
      if constexpr (!std::is_same_v<P, TickEvent> && !std::is_same_v<P, ObservationRecorded>) payload(w, p);
    }, event.payload);
  }
  w.string("schema");
  w.integer(kEventValueSchema);
  w.string("time_s");
  number(w, event.time_s);
  w.string("type");
  w.string(event_type_name(event.payload));
}

}  // namespace capstan::storage
