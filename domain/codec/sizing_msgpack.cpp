#include "domain/codec/sizing_msgpack.hpp"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "domain/codec/compact_layout.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using compact_layout::element;
using compact_layout::float_exact;

// Element positions, frozen with the layouts.
enum ForecastAt : std::size_t { kFSchema, kPredictor, kHorizon, kRate, kObserved, kCandidates, kForecastSize };
enum CapacityAt : std::size_t {
  kCSchema, kVariant, kTtft, kItl, kSloSource, kLambdaStar, kPerReplica, kBound, kDemand, kRequired, kCapacitySize
};

}  // namespace

json encode_forecast_compact(const ForecastMade& e) {
  json candidates = json::array();
  for (const ForecastMade::Candidate& c : e.candidates) {
    candidates.push_back(c.predictor);
    candidates.push_back(float_exact(c.recent_error));
  }
  return json::array({kSizingLayoutSchema, e.predictor, float_exact(e.horizon_s), float_exact(e.rate_rps),
                      float_exact(e.observed_rps), std::move(candidates)});
}

json encode_capacity_compact(const CapacitySized& e) {
  return json::array({kSizingLayoutSchema, e.variant, float_exact(e.slo.ttft_ms), float_exact(e.slo.itl_ms), e.slo_source,
                      float_exact(e.lambda_star_rps), float_exact(e.per_replica_rps), e.bound, float_exact(e.demand_rps),
                      e.required_replicas});
}

ForecastMade read_forecast_compact(const FieldReader& p, const ModelKey& model) {
  compact_layout::expect_layout(p, kSizingLayoutSchema, "forecast", kForecastSize,
                                "schema, predictor, horizon_s, rate_rps, observed_rps, candidates");
  ForecastMade e;
  e.model = model;
  e.predictor = element(p, kPredictor, "predictor").string();
  e.horizon_s = element(p, kHorizon, "horizon_s").number();
  e.rate_rps = element(p, kRate, "rate_rps").number();
  e.observed_rps = element(p, kObserved, "observed_rps").number();
  const FieldReader candidates = element(p, kCandidates, "candidates");
  if (candidates.size() % 2 != 0) candidates.fail("must hold predictors and recent errors in pairs");
  for (std::size_t i = 0; i < candidates.size(); i += 2) {
    e.candidates.push_back({candidates.at(i).string(), candidates.at(i + 1).number()});
  }
  return e;
}

CapacitySized read_capacity_compact(const FieldReader& p, const ModelKey& model) {
  compact_layout::expect_layout(p, kSizingLayoutSchema, "capacity", kCapacitySize,
                                "schema, variant, ttft_ms, itl_ms, slo_source, lambda_star_rps, per_replica_rps, bound, "
                                "demand_rps, required_replicas");
  CapacitySized e;
  e.model = model;
  e.variant = element(p, kVariant, "variant").string();
  e.slo.ttft_ms = element(p, kTtft, "ttft_ms").number();
  e.slo.itl_ms = element(p, kItl, "itl_ms").number();
  e.slo_source = element(p, kSloSource, "slo_source").string();
  e.lambda_star_rps = element(p, kLambdaStar, "lambda_star_rps").number();
  e.per_replica_rps = element(p, kPerReplica, "per_replica_rps").number();
  e.bound = element(p, kBound, "bound").string();
  e.demand_rps = element(p, kDemand, "demand_rps").number();
  e.required_replicas = element(p, kRequired, "required_replicas").int32();
  return e;
}

void write_forecast_msgpack(MsgpackWriter& w, const ForecastMade& e) {
  w.array(kForecastSize);
  w.integer(kSizingLayoutSchema);
  w.string(e.predictor);
  w.float_exact(e.horizon_s);
  w.float_exact(e.rate_rps);
  w.float_exact(e.observed_rps);
  w.array(2 * e.candidates.size());
  for (const ForecastMade::Candidate& c : e.candidates) {
    w.string(c.predictor);
    w.float_exact(c.recent_error);
  }
}

void write_capacity_msgpack(MsgpackWriter& w, const CapacitySized& e) {
  w.array(kCapacitySize);
  w.integer(kSizingLayoutSchema);
  w.string(e.variant);
  w.float_exact(e.slo.ttft_ms);
  w.float_exact(e.slo.itl_ms);
  w.string(e.slo_source);
  w.float_exact(e.lambda_star_rps);
  w.float_exact(e.per_replica_rps);
  w.string(e.bound);
  w.float_exact(e.demand_rps);
  w.integer(e.required_replicas);
}

ForecastMade read_forecast_msgpack(MsgpackReader& r, const ModelKey& model) {
  r.array(kForecastSize);
  if (r.integer() != kSizingLayoutSchema) throw MsgpackMismatch();
  ForecastMade e;
  e.model = model;
  e.predictor = std::string(r.string());
  e.horizon_s = r.float_value();
  e.rate_rps = r.float_value();
  e.observed_rps = r.float_value();
  const std::size_t n = r.array();
  if (n % 2 != 0) throw MsgpackMismatch();
  e.candidates.resize(n / 2);
  for (ForecastMade::Candidate& c : e.candidates) {
    c.predictor = std::string(r.string());
    c.recent_error = r.float_value();
  }
  return e;
}

CapacitySized read_capacity_msgpack(MsgpackReader& r, const ModelKey& model) {
  r.array(kCapacitySize);
  if (r.integer() != kSizingLayoutSchema) throw MsgpackMismatch();
  CapacitySized e;
  e.model = model;
  e.variant = std::string(r.string());
  e.slo.ttft_ms = r.float_value();
  e.slo.itl_ms = r.float_value();
  e.slo_source = std::string(r.string());
  e.lambda_star_rps = r.float_value();
  e.per_replica_rps = r.float_value();
  e.bound = std::string(r.string());
  e.demand_rps = r.float_value();
  e.required_replicas = r.int32();
  return e;
}

}  // namespace capstan
