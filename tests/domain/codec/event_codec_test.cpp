#include "domain/codec/event_codec.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/codec_test_support.hpp"

#include "domain/codec/msgpack.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using namespace capstan::testing;

const double kPointThree = 0.1 + 0.2;  // 0.30000000000000004, not 0.3

const ModelKey kModel{"prod", "meta-llama/Llama-3.1-8B"};

std::vector<TickEvent> one_of_each() {
  ParamsLearned params;
  params.variant = {kModel, "h100"};
  params.params = {kPointThree, kDenormMin, 1e-300};
  params.covariance = {kNaN, kInf, -kInf, kPointThree, kDenormMin, -0.0, 1e308, 2.2250738585072009e-308, 7};
  params.nis = 3.75;
  params.accepted = true;
  params.source = "ekf";
  params.note = "";
  params.accepted_updates = 4'000'000'000L;
  params.rejected_updates = 3;

  ColdStartLearned cold{{kModel, "a100"}, {41.5, kPointThree, kInf}, 42.25, 60};

  ForecastMade forecast;
  forecast.model = kModel;
  forecast.predictor = "holt";
  forecast.horizon_s = 90;
  forecast.rate_rps = kPointThree;
  forecast.observed_rps = -kInf;
  forecast.candidates = {{"constant", kNaN}, {"holt", 0.125}};

  CapacitySized capacity;
  capacity.model = kModel;
  capacity.variant = "h100";
  capacity.slo = {2000, 0};
  capacity.slo_source = "explicit";
  capacity.lambda_star_rps = 12.5;
  capacity.per_replica_rps = kDenormMin;
  capacity.bound = "ttft-tail";
  capacity.demand_rps = kNaN;
  capacity.required_replicas = 7;

  StageApplied stage{kModel, "h100", Stage::kPdBand, 2, 3, ReasonCode::kPdBand};

  DecisionMade decision{{kModel, "h100", 3, 4, {ReasonCode::kScaleUp, "scale up 3 -> 4: demand 40 rps"}}};

  return {params, cold, forecast, capacity, stage, decision};
}

json encoded_params_learned() { return encode_event(one_of_each()[0]); }

}  // namespace

TEST_CASE("each event type is named as the event format freezes it") {
  std::vector<std::string> types;
  for (const TickEvent& e : one_of_each()) types.push_back(event_type(e));
  CHECK(types == std::vector<std::string>{"params_learned", "cold_start_learned", "forecast", "capacity", "stage",
                                          "decision"});
  CHECK(std::string(to_string(Stage::kMetricGuard)) == "metric_guard");
  CHECK(std::string(to_string(Stage::kStepLimit)) == "step_limit");
  CHECK(std::string(to_string(Stage::kPdBand)) == "pd_band");
  CHECK(std::string(to_string(Stage::kEnforcer)) == "enforcer");
  CHECK(std::string(to_string(Stage::kBudget)) == "budget");
}

TEST_CASE("every event encodes to the same JSON after a decode") {
  for (const TickEvent& event : one_of_each()) {
    const json encoded = encode_event(event);
    INFO(encoded.dump());
    CHECK(encoded.at("schema") == kEventSchema);
    CHECK(encoded.at("type") == event_type(event));
    const auto decoded = decode_event(encoded);
    REQUIRE(decoded.ok());
    CHECK(decoded->index() == event.index());
    CHECK(encode_event(*decoded).dump() == encoded.dump());
  }
}

TEST_CASE("every event encodes to the same MessagePack bytes after a decode") {
  for (const TickEvent& event : one_of_each()) {
    const std::vector<std::uint8_t> bytes = to_msgpack_bytes(encode_event(event));
    const auto read = from_msgpack_bytes(bytes);
    REQUIRE(read.ok());
    const auto decoded = decode_event(*read);
    REQUIRE(decoded.ok());
    CHECK(to_msgpack_bytes(encode_event(*decoded)) == bytes);
  }
}

TEST_CASE("events without NaN read back equal to what was written") {
  const auto events = one_of_each();
  const auto stage = decode_event(encode_event(events[4]));
  REQUIRE(stage.ok());
  CHECK(std::get<StageApplied>(*stage) == std::get<StageApplied>(events[4]));
  const auto decision = decode_event(encode_event(events[5]));
  REQUIRE(decision.ok());
  CHECK(std::get<DecisionMade>(*decision) == std::get<DecisionMade>(events[5]));
  const auto cold = decode_event(encode_event(ColdStartLearned{{kModel, "a100"}, {1.5, kPointThree}, 2, 3}));
  REQUIRE(cold.ok());
  CHECK(std::get<ColdStartLearned>(*cold) == ColdStartLearned{{kModel, "a100"}, {1.5, kPointThree}, 2, 3});
}

TEST_CASE("learned parameters and their covariance read back bit for bit through JSON text and MessagePack") {
  const ParamsLearned written = std::get<ParamsLearned>(one_of_each()[0]);
  const json through_text = json::parse(encode_event(written).dump());
  const auto through_msgpack = from_msgpack_bytes(to_msgpack_bytes(encode_event(written)));
  REQUIRE(through_msgpack.ok());
  for (const json& doc : {through_text, *through_msgpack}) {
    const auto decoded = decode_event(doc);
    REQUIRE(decoded.ok());
    const ParamsLearned& read = std::get<ParamsLearned>(*decoded);
    for (std::size_t i = 0; i < written.covariance.size(); ++i) {
      INFO("covariance[" << i << "]");
      CHECK(bits(read.covariance[i]) == bits(written.covariance[i]));
    }
    CHECK(bits(read.params.alpha_ms) == bits(kPointThree));
    CHECK(bits(read.params.beta_ms) == bits(kDenormMin));
    CHECK(bits(read.params.gamma_ms) == bits(1e-300));
    CHECK(read.variant == written.variant);
    CHECK(read.accepted_updates == 4'000'000'000L);
    CHECK(read.source == "ekf");
  }
}

TEST_CASE("NaN and the infinities of a forecast and a capacity read back as they were") {
  const auto events = one_of_each();
  const auto forecast = decode_event(encode_event(events[2]));
  REQUIRE(forecast.ok());
  const ForecastMade& f = std::get<ForecastMade>(*forecast);
  CHECK(bits(f.observed_rps) == bits(-kInf));
  CHECK(bits(f.rate_rps) == bits(kPointThree));
  REQUIRE(f.candidates.size() == 2);
  CHECK(bits(f.candidates[0].recent_error) == bits(kNaN));
  CHECK(f.candidates[1] == ForecastMade::Candidate{"holt", 0.125});
  const auto capacity = decode_event(encode_event(events[3]));
  REQUIRE(capacity.ok());
  const CapacitySized& c = std::get<CapacitySized>(*capacity);
  CHECK(bits(c.demand_rps) == bits(kNaN));
  CHECK(bits(c.per_replica_rps) == bits(kDenormMin));
  CHECK(c.slo.ttft_ms == 2000);
  CHECK(c.slo.itl_ms == 0);
  CHECK(c.bound == "ttft-tail");
  CHECK(c.required_replicas == 7);
}

TEST_CASE("an event missing any field is refused naming that field") {
  for (const TickEvent& event : one_of_each()) {
    const json valid = encode_event(event);
    std::vector<Field> fields;
    collect_fields(valid, "", json::json_pointer(), fields);
    for (const Field& f : fields) {
      json doc = valid;
      doc[f.pointer.parent_pointer()].erase(f.pointer.back());
      const auto decoded = decode_event(doc);
      INFO(f.path);
      REQUIRE_FALSE(decoded.ok());
      CHECK(names_field(decoded.error().message, f.path));
    }
  }
}

TEST_CASE("an event with any field of the wrong type is refused naming that field") {
  for (const TickEvent& event : one_of_each()) {
    const json valid = encode_event(event);
    std::vector<Field> fields;
    collect_fields(valid, "", json::json_pointer(), fields);
    for (const Field& f : fields) {
      json doc = valid;
      doc[f.pointer] = wrong_type_for(valid[f.pointer]);
      const auto decoded = decode_event(doc);
      INFO(f.path << " = " << doc[f.pointer].dump());
      REQUIRE_FALSE(decoded.ok());
      CHECK(names_field(decoded.error().message, f.path));
    }
  }
}

TEST_CASE("an element of a number array that is not a number is refused naming its index") {
  json doc = encoded_params_learned();
  doc["covariance"][4] = "x";
  const auto decoded = decode_event(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("covariance[4] must be a number, got \"x\""));
}

TEST_CASE("a covariance that is not three by three is refused") {
  json doc = encoded_params_learned();
  doc["covariance"].erase(8);
  const auto decoded = decode_event(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("covariance must hold 9 numbers"));
}

TEST_CASE("an unknown schema version is refused naming schema") {
  json doc = encoded_params_learned();
  doc["schema"] = 2;
  const auto decoded = decode_event(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("schema 2 is not a version this build reads (1)"));
}

TEST_CASE("an unknown event type is refused naming type") {
  json doc = encoded_params_learned();
  doc["type"] = "params_guessed";
  const auto decoded = decode_event(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("type is not a known event type, got \"params_guessed\""));
}

TEST_CASE("an unknown stage or reason code is refused naming the field") {
  const json valid = encode_event(one_of_each()[4]);
  json doc = valid;
  doc["stage"] = "autoscaler";
  auto decoded = decode_event(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("stage must be metric_guard, step_limit, pd_band"));
  doc = valid;
  doc["code"] = "scale_sideways";
  decoded = decode_event(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("code must be a reason code, got \"scale_sideways\""));
}

TEST_CASE("a document that is no event is refused without throwing") {
  for (const json& doc : {json(), json(3), json("params_learned"), json::array({1, 2}), json::object()}) {
    INFO(doc.dump());
    CHECK_NOTHROW(decode_event(doc));
    CHECK_FALSE(decode_event(doc).ok());
  }
}

TEST_CASE("a malformed MessagePack buffer is an error and not an exception") {
  std::vector<std::uint8_t> bytes = to_msgpack_bytes(encoded_params_learned());
  const std::vector<std::uint8_t> truncated(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
  std::vector<std::uint8_t> trailing = bytes;
  trailing.push_back(0xc0);
  for (const auto& bad : {truncated, trailing, std::vector<std::uint8_t>{0xc1}, std::vector<std::uint8_t>{}}) {
    Result<json> read = json();
    CHECK_NOTHROW(read = from_msgpack_bytes(bad));
    REQUIRE_FALSE(read.ok());
    CHECK_THAT(read.error().message, Catch::Contains("MessagePack record of " + std::to_string(bad.size()) + " bytes"));
  }
}

}  // namespace capstan
