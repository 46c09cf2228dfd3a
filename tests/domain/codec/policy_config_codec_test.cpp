#include "domain/codec/policy_config_codec.hpp"

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

const double kPointThree = 0.1 + 0.2;

PolicyConfig sample_config() {
  PolicyConfig c;
  c.slo = {kPointThree, kDenormMin};
  c.slo_multiplier = 1 + kPointThree;
  c.gpu_budget = 64;
  c.scale_to_zero_retention_s = 600;
  c.scale_down_cooldown_s = 120.5;
  c.max_step_up = 4;
  c.max_step_down = 1;
  c.pd_band = {0.5, 1.25};
  c.predictor = "kalman";
  c.tail_probability = kPointThree;
  c.client_timeout_s = 1e-300;
  c.target_concurrency_per_replica = 24;
  return c;
}

// The decoder's error for `valid` with the member at `pointer` set to `value`.
std::string refusal(const std::string& pointer, const json& value) {
  json doc = encode_policy_config(sample_config());
  doc[json::json_pointer(pointer)] = value;
  const auto decoded = decode_policy_config(doc);
  if (decoded.ok()) return "accepted";
  return decoded.error().message;
}

}  // namespace

TEST_CASE("a policy config encodes to the same JSON and MessagePack after a decode") {
  for (const PolicyConfig& config : {sample_config(), PolicyConfig{}}) {
    const json encoded = encode_policy_config(config);
    INFO(encoded.dump());
    CHECK(encoded.at("schema") == kPolicyConfigSchema);
    const auto decoded = decode_policy_config(json::parse(encoded.dump()));
    REQUIRE(decoded.ok());
    CHECK(encode_policy_config(*decoded).dump() == encoded.dump());

    const std::vector<std::uint8_t> bytes = to_msgpack_bytes(encoded);
    const auto read = from_msgpack_bytes(bytes);
    REQUIRE(read.ok());
    const auto from_bytes = decode_policy_config(*read);
    REQUIRE(from_bytes.ok());
    CHECK(to_msgpack_bytes(encode_policy_config(*from_bytes)) == bytes);
  }
}

TEST_CASE("every knob of a policy config reads back bit for bit") {
  const PolicyConfig written = sample_config();
  const auto through_msgpack = from_msgpack_bytes(to_msgpack_bytes(encode_policy_config(written)));
  REQUIRE(through_msgpack.ok());
  for (const json& doc : {json::parse(encode_policy_config(written).dump()), *through_msgpack}) {
    const auto decoded = decode_policy_config(doc);
    REQUIRE(decoded.ok());
    const PolicyConfig& read = *decoded;
    CHECK(bits(read.slo.ttft_ms) == bits(kPointThree));
    CHECK(bits(read.slo.itl_ms) == bits(kDenormMin));
    CHECK(bits(read.slo_multiplier) == bits(1 + kPointThree));
    CHECK(read.gpu_budget == 64);
    CHECK(read.scale_to_zero_retention_s == 600);
    CHECK(read.scale_down_cooldown_s == 120.5);
    CHECK(read.max_step_up == 4);
    CHECK(read.max_step_down == 1);
    CHECK(read.pd_band == RatioBand{0.5, 1.25});
    CHECK(read.predictor == "kalman");
    CHECK(bits(read.tail_probability) == bits(kPointThree));
    CHECK(bits(read.client_timeout_s) == bits(1e-300));
    CHECK(read.target_concurrency_per_replica == 24);
  }
}

TEST_CASE("a policy config missing any field is refused naming it") {
  const json valid = encode_policy_config(sample_config());
  std::vector<Field> fields;
  collect_fields(valid, "", json::json_pointer(), fields);
  REQUIRE(fields.size() == 17);
  for (const Field& f : fields) {
    json doc = valid;
    doc[f.pointer.parent_pointer()].erase(f.pointer.back());
    const auto decoded = decode_policy_config(doc);
    INFO("deleted " << f.path);
    REQUIRE_FALSE(decoded.ok());
    CHECK(names_field(decoded.error().message, f.path));
  }
}

TEST_CASE("a policy config with any field of the wrong type is refused naming it") {
  const json valid = encode_policy_config(sample_config());
  std::vector<Field> fields;
  collect_fields(valid, "", json::json_pointer(), fields);
  for (const Field& f : fields) {
    json doc = valid;
    doc[f.pointer] = wrong_type_for(valid[f.pointer]);
    const auto decoded = decode_policy_config(doc);
    INFO(f.path << " = " << doc[f.pointer].dump());
    REQUIRE_FALSE(decoded.ok());
    CHECK(names_field(decoded.error().message, f.path));
  }
}

TEST_CASE("a misspelt knob is refused naming it") {
  json doc = encode_policy_config(sample_config());
  doc["slo_multipler"] = 3;
  auto decoded = decode_policy_config(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("slo_multipler is not a field of a policy config, got 3"));
  doc = encode_policy_config(sample_config());
  doc["pd_band"]["min"] = 0.5;
  decoded = decode_policy_config(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("pd_band.min is not a field of a policy config"));
}

TEST_CASE("a knob out of range is refused naming the field and the value") {
  struct Case {
    std::string pointer;
    json value;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"/slo/ttft_ms", -1, "slo.ttft_ms must be a finite number >= 0 (0 = no constraint on TTFT), got -1"},
      {"/slo/ttft_ms", "inf", "slo.ttft_ms must be a finite number >= 0 (0 = no constraint on TTFT), got inf"},
      {"/slo/itl_ms", "nan", "slo.itl_ms must be a finite number >= 0 (0 = no constraint on ITL), got NaN"},
      {"/slo_multiplier", 0.8, "slo_multiplier must be a finite number > 1, got 0.8"},
      {"/slo_multiplier", 1, "slo_multiplier must be a finite number > 1, got 1"},
      {"/slo_multiplier", "inf", "slo_multiplier must be a finite number > 1, got inf"},
      {"/gpu_budget", -8, "gpu_budget must be an integer >= 0 (0 = unlimited), got -8"},
      {"/gpu_budget", 1.5, "gpu_budget must be an integer, got 1.5"},
      {"/scale_to_zero_retention_s", -0.5, "scale_to_zero_retention_s must be a finite number >= 0 (0 = scale to zero off), got -0.5"},
      {"/scale_down_cooldown_s", "-inf", "scale_down_cooldown_s must be a finite number >= 0 (0 = no cooldown), got -inf"},
      {"/max_step_up", -1, "max_step_up must be an integer >= 0 (0 = unlimited), got -1"},
      {"/max_step_down", -2, "max_step_down must be an integer >= 0 (0 = unlimited), got -2"},
      {"/pd_band/min_prefill_per_decode", -0.5, "pd_band.min_prefill_per_decode must be a finite number >= 0 (0 = no lower bound), got -0.5"},
      {"/pd_band/max_prefill_per_decode", "inf", "pd_band.max_prefill_per_decode must be a finite number >= 0 (0 = no upper bound), got inf"},
      {"/pd_band/min_prefill_per_decode", 2, "pd_band.min_prefill_per_decode 2 is above pd_band.max_prefill_per_decode 1.25"},
      {"/predictor", "prophet", "predictor must be one of constant, holt, kalman, arima, seasonal, got \"prophet\""},
      {"/tail_probability", 0, "tail_probability must be in (0, 1), got 0"},
      {"/tail_probability", 1, "tail_probability must be in (0, 1), got 1"},
      {"/tail_probability", "nan", "tail_probability must be in (0, 1), got NaN"},
      {"/client_timeout_s", -30, "client_timeout_s must be a finite number >= 0 (0 = unknown), got -30"},
      {"/target_concurrency_per_replica", 0, "target_concurrency_per_replica must be a finite number > 0, got 0"},
      {"/target_concurrency_per_replica", "inf", "target_concurrency_per_replica must be a finite number > 0, got inf"},
  };
  for (const Case& c : cases) {
    INFO(c.pointer << " = " << c.value.dump());
    CHECK_THAT(refusal(c.pointer, c.value), Catch::Contains(c.message));
  }
}

TEST_CASE("knobs at the edges of their ranges are accepted") {
  CHECK(refusal("/slo", {{"ttft_ms", 0}, {"itl_ms", 0}}) == "accepted");  // no constraint on either metric
  CHECK(refusal("/slo_multiplier", 1.0000001) == "accepted");
  CHECK(refusal("/gpu_budget", 0) == "accepted");
  CHECK(refusal("/max_step_down", 0) == "accepted");
  CHECK(refusal("/pd_band", {{"min_prefill_per_decode", 0}, {"max_prefill_per_decode", 0}}) == "accepted");  // off
  CHECK(refusal("/pd_band", {{"min_prefill_per_decode", 0.5}, {"max_prefill_per_decode", 0}}) == "accepted");  // no upper bound
  CHECK(refusal("/pd_band", {{"min_prefill_per_decode", 1}, {"max_prefill_per_decode", 1}}) == "accepted");
  CHECK(refusal("/tail_probability", 0.999) == "accepted");
  CHECK(refusal("/client_timeout_s", 0) == "accepted");
  for (const char* predictor : {"constant", "holt", "kalman", "arima", "seasonal"}) {
    CHECK(refusal("/predictor", predictor) == "accepted");
  }
}

TEST_CASE("validate applies the decoder's rules to a config built in code") {
  CHECK_FALSE(validate(PolicyConfig{}).has_value());
  CHECK_FALSE(validate(sample_config()).has_value());
  PolicyConfig c = sample_config();
  c.slo_multiplier = 0.8;
  REQUIRE(validate(c).has_value());
  CHECK(validate(c)->code == ErrorCode::kInvalidArgument);
  CHECK(validate(c)->message == "slo_multiplier must be a finite number > 1, got 0.8");
  c = sample_config();
  c.slo.itl_ms = kNaN;
  REQUIRE(validate(c).has_value());
  CHECK_THAT(validate(c)->message, Catch::StartsWith("slo.itl_ms must be"));
  c = sample_config();
  c.pd_band = {-1, 0};
  REQUIRE(validate(c).has_value());
  CHECK_THAT(validate(c)->message, Catch::StartsWith("pd_band.min_prefill_per_decode must be"));
  c = sample_config();
  c.predictor = "Holt";
  REQUIRE(validate(c).has_value());
  CHECK_THAT(validate(c)->message, Catch::Contains("got \"Holt\""));
  c = sample_config();
  c.client_timeout_s = kInf;
  REQUIRE(validate(c).has_value());
  CHECK_THAT(validate(c)->message, Catch::StartsWith("client_timeout_s must be"));
}

TEST_CASE("a policy config of an unknown schema version is refused naming schema") {
  CHECK_THAT(refusal("/schema", 2), Catch::Contains("schema 2 is not a version this build reads (1)"));
}

TEST_CASE("a document that is no policy config is refused without throwing") {
  for (const json& doc : {json(), json(3), json("holt"), json::array(), json::object()}) {
    INFO(doc.dump());
    CHECK_NOTHROW(decode_policy_config(doc));
    CHECK_FALSE(decode_policy_config(doc).ok());
  }
}

}  // namespace capstan
