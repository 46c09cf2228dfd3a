#include "domain/codec/event_codec.hpp"

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan {
namespace {

using nlohmann::json;

constexpr Stage kStages[] = {Stage::kMetricGuard, Stage::kStepLimit, Stage::kPdBand, Stage::kEnforcer, Stage::kBudget};

Stage read_stage(const FieldReader& r) {
  const std::string name = r.string();
  for (Stage s : kStages) {
    if (name == to_string(s)) return s;
  }
  r.fail("must be metric_guard, step_limit, pd_band, enforcer or budget");
}

ReasonCode read_reason_code(const FieldReader& r) {
  auto parsed = parse_reason_code(r.string());
  if (!parsed) r.fail("must be a reason code");
  return *parsed;
}

// A VariantKey as the `model` and `variant` fields of the event itself, as the events
// keyed by model and variant name carry them.
void put_variant_key(json& j, const VariantKey& key) {
  j["model"] = encode_model_key(key.model);
  j["variant"] = key.variant;
}

VariantKey read_variant_key(const FieldReader& r) { return {read_model_key(r.at("model")), r.at("variant").string()}; }

json encode_body(const ParamsLearned& e) {
  json covariance = json::array();
  for (double c : e.covariance) covariance.push_back(encode_number(c));
  json j = {{"params",
             {{"alpha_ms", encode_number(e.params.alpha_ms)},
              {"beta_ms", encode_number(e.params.beta_ms)},
              {"gamma_ms", encode_number(e.params.gamma_ms)}}},
            {"covariance", std::move(covariance)},
            {"nis", encode_number(e.nis)},
            {"accepted", e.accepted},
            {"source", e.source},
            {"note", e.note},
            {"accepted_updates", e.accepted_updates},
            {"rejected_updates", e.rejected_updates}};
  put_variant_key(j, e.variant);
  return j;
}

ParamsLearned read_params_learned(const FieldReader& r) {
  ParamsLearned e;
  e.variant = read_variant_key(r);
  const FieldReader params = r.at("params");
  e.params.alpha_ms = params.at("alpha_ms").number();
  e.params.beta_ms = params.at("beta_ms").number();
  e.params.gamma_ms = params.at("gamma_ms").number();
  const FieldReader covariance = r.at("covariance");
  if (covariance.size() != e.covariance.size()) covariance.fail("must hold 9 numbers (3 x 3, row-major)");
  for (std::size_t i = 0; i < e.covariance.size(); ++i) e.covariance[i] = covariance.at(i).number();
  e.nis = r.at("nis").number();
  e.accepted = r.at("accepted").boolean();
  e.source = r.at("source").string();
  e.note = r.at("note").string();
  e.accepted_updates = r.at("accepted_updates").integer();
  e.rejected_updates = r.at("rejected_updates").integer();
  return e;
}

json encode_body(const ColdStartLearned& e) {
  json j = {{"new_samples_s", encode_numbers(e.new_samples_s)},
            {"estimate_s", encode_number(e.estimate_s)},
            {"prior_s", encode_number(e.prior_s)}};
  put_variant_key(j, e.variant);
  return j;
}

ColdStartLearned read_cold_start_learned(const FieldReader& r) {
  ColdStartLearned e;
  e.variant = read_variant_key(r);
  e.new_samples_s = r.at("new_samples_s").numbers();
  e.estimate_s = r.at("estimate_s").number();
  e.prior_s = r.at("prior_s").number();
  return e;
}

json encode_body(const ForecastMade& e) {
  json candidates = json::array();
  for (const ForecastMade::Candidate& c : e.candidates) {
    candidates.push_back({{"predictor", c.predictor}, {"recent_error", encode_number(c.recent_error)}});
  }
  return {{"model", encode_model_key(e.model)},
          {"predictor", e.predictor},
          {"horizon_s", encode_number(e.horizon_s)},
          {"rate_rps", encode_number(e.rate_rps)},
          {"observed_rps", encode_number(e.observed_rps)},
          {"candidates", std::move(candidates)}};
}

ForecastMade read_forecast_made(const FieldReader& r) {
  ForecastMade e;
  e.model = read_model_key(r.at("model"));
  e.predictor = r.at("predictor").string();
  e.horizon_s = r.at("horizon_s").number();
  e.rate_rps = r.at("rate_rps").number();
  e.observed_rps = r.at("observed_rps").number();
  const FieldReader candidates = r.at("candidates");
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const FieldReader c = candidates.at(i);
    e.candidates.push_back({c.at("predictor").string(), c.at("recent_error").number()});
  }
  return e;
}

json encode_body(const CapacitySized& e) {
  return {{"model", encode_model_key(e.model)},
          {"variant", e.variant},
          {"slo", {{"ttft_ms", encode_number(e.slo.ttft_ms)}, {"itl_ms", encode_number(e.slo.itl_ms)}}},
          {"slo_source", e.slo_source},
          {"lambda_star_rps", encode_number(e.lambda_star_rps)},
          {"per_replica_rps", encode_number(e.per_replica_rps)},
          {"bound", e.bound},
          {"demand_rps", encode_number(e.demand_rps)},
          {"required_replicas", e.required_replicas}};
}

CapacitySized read_capacity_sized(const FieldReader& r) {
  CapacitySized e;
  e.model = read_model_key(r.at("model"));
  e.variant = r.at("variant").string();
  const FieldReader slo = r.at("slo");
  e.slo.ttft_ms = slo.at("ttft_ms").number();
  e.slo.itl_ms = slo.at("itl_ms").number();
  e.slo_source = r.at("slo_source").string();
  e.lambda_star_rps = r.at("lambda_star_rps").number();
  e.per_replica_rps = r.at("per_replica_rps").number();
  e.bound = r.at("bound").string();
  e.demand_rps = r.at("demand_rps").number();
  e.required_replicas = r.at("required_replicas").int32();
  return e;
}

json encode_body(const StageApplied& e) {
  return {{"model", encode_model_key(e.model)},
          {"variant", e.variant},
          {"stage", to_string(e.stage)},
          {"before", e.before},
          {"after", e.after},
          {"code", to_string(e.code)}};
}

StageApplied read_stage_applied(const FieldReader& r) {
  StageApplied e;
  e.model = read_model_key(r.at("model"));
  e.variant = r.at("variant").string();
  e.stage = read_stage(r.at("stage"));
  e.before = r.at("before").int32();
  e.after = r.at("after").int32();
  e.code = read_reason_code(r.at("code"));
  return e;
}

json encode_body(const DecisionMade& e) { return {{"decision", encode_decision(e.decision)}}; }

DecisionMade read_decision_made(const FieldReader& r) { return {read_decision(r.at("decision"))}; }

TickEvent read_event(const FieldReader& r) {
  const FieldReader type = r.at("type");
  const std::string name = type.string();
  if (name == "params_learned") return read_params_learned(r);
  if (name == "cold_start_learned") return read_cold_start_learned(r);
  if (name == "forecast") return read_forecast_made(r);
  if (name == "capacity") return read_capacity_sized(r);
  if (name == "stage") return read_stage_applied(r);
  if (name == "decision") return read_decision_made(r);
  type.fail("is not a known event type");
}

}  // namespace

json encode_event(const TickEvent& event) {
  json j = std::visit([](const auto& e) { return encode_body(e); }, event);
  j["schema"] = kEventSchema;
  j["type"] = event_type(event);
  return j;
}

Result<TickEvent> decode_event(const json& j) {
  return decode_with<TickEvent>("tick event", [&] {
    const FieldReader r(j, "");
    expect_schema(r, kEventSchema);
    return read_event(r);
  });
}

}  // namespace capstan
