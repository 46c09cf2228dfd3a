#include "domain/codec/tick_input_codec.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/msgpack.hpp"
#include "domain/codec/tick_input_test_support.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using namespace capstan::testing;

TickRecording sample_record() {
  const Decision d{{"prod", "qwen"}, "a100", 0, 1, {ReasonCode::kScaleFromZero, "requests waiting: scale up 0 -> 1"}};
  return {"hybrid", sample_input(), {d}};
}

}  // namespace

TEST_CASE("a tick input encodes to the same JSON and MessagePack after a decode") {
  const json encoded = encode_tick_input(sample_input());
  const auto decoded = decode_tick_input(json::parse(encoded.dump()));
  REQUIRE(decoded.ok());
  CHECK(encode_tick_input(*decoded).dump() == encoded.dump());

  const std::vector<std::uint8_t> bytes = to_msgpack_bytes(encoded);
  const auto read = from_msgpack_bytes(bytes);
  REQUIRE(read.ok());
  const auto from_bytes = decode_tick_input(*read);
  REQUIRE(from_bytes.ok());
  CHECK(to_msgpack_bytes(encode_tick_input(*from_bytes)) == bytes);
}

TEST_CASE("a model tick input and a tick record encode to the same JSON and MessagePack after a decode") {
  const json model = encode_model_tick_input(sample_input().models[0]);
  const auto model_back = decode_model_tick_input(*from_msgpack_bytes(to_msgpack_bytes(model)));
  REQUIRE(model_back.ok());
  CHECK(encode_model_tick_input(*model_back).dump() == model.dump());
  CHECK(to_msgpack_bytes(encode_model_tick_input(*model_back)) == to_msgpack_bytes(model));

  const json record = encode_tick_record(sample_record());
  const auto record_back = decode_tick_record(*from_msgpack_bytes(to_msgpack_bytes(record)));
  REQUIRE(record_back.ok());
  CHECK(encode_tick_record(*record_back).dump() == record.dump());
  CHECK(record_back->policy == "hybrid");
  CHECK(record_back->decisions == sample_record().decisions);
}

TEST_CASE("pod metrics read back bit for bit with NaN infinities and denormals through JSON text and MessagePack") {
  const TickInput written = sample_input();
  const json encoded = encode_tick_input(written);
  const auto through_msgpack = from_msgpack_bytes(to_msgpack_bytes(encoded));
  REQUIRE(through_msgpack.ok());
  for (const json& doc : {json::parse(encoded.dump()), *through_msgpack}) {
    const auto decoded = decode_tick_input(doc);
    REQUIRE(decoded.ok());
    const TickInput& read = *decoded;
    CHECK(bits(read.now_s) == bits(written.now_s));
    REQUIRE(read.models.size() == 2);
    const ModelTickInput& m = read.models[0];
    CHECK(bits(m.decode_queue) == bits(kNaN));
    CHECK(bits(m.arrival_rate_rps) == bits(kPointThree));
    REQUIRE(m.variants.size() == 2);
    const VariantTickInput& v = m.variants[0];
    REQUIRE(v.state.pods.size() == 2);
    check_pod_bits(v.state.pods[0], written.models[0].variants[0].state.pods[0]);
    check_pod_bits(v.state.pods[1], written.models[0].variants[0].state.pods[1]);
    CHECK(bits(v.state.pods[1].kv_usage) == bits(-0.0));
    REQUIRE(v.forward_passes.size() == 2);
    CHECK(bits(v.forward_passes[1].wall_time_ms) == bits(kNaN));
    CHECK(bits(v.forward_passes[1].decode_kv_tokens) == bits(kInf));
    CHECK(bits(v.forward_passes[1].queued_decode_kv_tokens) == bits(kPointThree));
    CHECK(v.forward_passes[0].pod == "h100-1");
    CHECK(bits(v.new_cold_starts_s[1]) == bits(kPointThree));
    CHECK(bits(v.state.spec.cost_per_replica) == bits(kPointThree));
    CHECK(v.state.spec.role == Role::kPrefill);
    CHECK(v.state.desired_replicas == 3);
    CHECK_FALSE(m.variants[1].state.desired_replicas.has_value());
    CHECK(m.priority == 2);
  }
}

TEST_CASE("a pod without a per-request ITL histogram writes none and reads back empty") {
  const json encoded = encode_tick_input(sample_input());
  CHECK_FALSE(encoded["models"][0]["variants"][0]["pods"][0].contains("request_itl"));
  CHECK(encoded["models"][0]["variants"][0]["pods"][1].contains("request_itl"));
}

TEST_CASE("a tick input missing a field or holding one of the wrong type is refused naming its path") {
  check_every_field_refused(encode_tick_input(sample_input()), [](const json& j) { return decode_tick_input(j); });
}

TEST_CASE("a model tick input missing a field or holding one of the wrong type is refused naming its path") {
  check_every_field_refused(encode_model_tick_input(sample_input().models[0]),
                            [](const json& j) { return decode_model_tick_input(j); });
}

TEST_CASE("a tick record missing a field or holding one of the wrong type is refused naming its path") {
  check_every_field_refused(encode_tick_record(sample_record()), [](const json& j) { return decode_tick_record(j); });
}

TEST_CASE("a malformed element of an array or an unknown name is refused with the path and the value") {
  const json valid = encode_tick_input(sample_input());
  json doc = valid;
  doc["models"][0]["variants"][0]["new_cold_starts_s"][1] = "soon";
  auto decoded = decode_tick_input(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message,
             Catch::Contains("models[0].variants[0].new_cold_starts_s[1] must be a number, got \"soon\""));

  doc = valid;
  doc["models"][0]["variants"][0]["pods"][1]["avg_ttft_ms"] = "x";
  decoded = decode_tick_input(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message,
             Catch::Contains("models[0].variants[0].pods[1].avg_ttft_ms must be a number, got \"x\""));

  doc = valid;
  doc["models"][0]["variants"][1]["spec"]["role"] = "router";
  decoded = decode_tick_input(doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("models[0].variants[1].spec.role must be both"));

  json record = encode_tick_record(sample_record());
  record["decisions"][0]["reason"]["code"] = "scale_sideways";
  const auto bad_record = decode_tick_record(record);
  REQUIRE_FALSE(bad_record.ok());
  CHECK_THAT(bad_record.error().message, Catch::Contains("decisions[0].reason.code must be a reason code"));
}

TEST_CASE("a tick input of an unknown schema version is refused naming schema") {
  json input = encode_tick_input(sample_input());
  input["schema"] = 99;
  const auto decoded = decode_tick_input(input);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("schema 99 is not a version this build reads (1)"));

  json record = encode_tick_record(sample_record());
  record["input"]["schema"] = 0;
  const auto bad_record = decode_tick_record(record);
  REQUIRE_FALSE(bad_record.ok());
  CHECK_THAT(bad_record.error().message, Catch::Contains("input: tick input: schema 0 is not a version"));

  json model = encode_model_tick_input(sample_input().models[0]);
  model["schema"] = 2;
  CHECK_FALSE(decode_model_tick_input(model).ok());
}

TEST_CASE("a document that is no tick input is refused without throwing") {
  for (const json& doc : {json(), json(1.5), json("tick"), json::array({json::object()}), json::object()}) {
    INFO(doc.dump());
    CHECK_NOTHROW(decode_tick_input(doc));
    CHECK_NOTHROW(decode_model_tick_input(doc));
    CHECK_NOTHROW(decode_tick_record(doc));
    CHECK_FALSE(decode_tick_input(doc).ok());
    CHECK_FALSE(decode_model_tick_input(doc).ok());
    CHECK_FALSE(decode_tick_record(doc).ok());
  }
}

}  // namespace capstan
