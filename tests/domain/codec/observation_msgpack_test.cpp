// domain/codec/observation_msgpack.*: an observation's compact record (schema 2) is the
// same bytes from both writers, reads back through both readers to the input written,
// doubles bit for bit, is much smaller than schema 1's object, and refuses what it cannot
// read naming the field.
#include "domain/codec/observation_msgpack.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/tick_input_msgpack.hpp"
#include "domain/codec/tick_input_test_support.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using namespace capstan::testing;

std::vector<std::uint8_t> compact_bytes(const ModelTickInput& m) {
  std::vector<std::uint8_t> out;
  MsgpackWriter w(out);
  write_observation_msgpack(w, m);
  return out;
}

ModelTickInput read_direct(const std::vector<std::uint8_t>& bytes, const ModelKey& model) {
  MsgpackReader r(bytes);
  ModelTickInput m = read_observation_msgpack(r, model);
  if (!r.at_end()) throw MsgpackMismatch();
  return m;
}

ModelTickInput read_tree(const std::vector<std::uint8_t>& bytes, const ModelKey& model) {
  const json tree = json::from_msgpack(bytes);
  return read_observation_compact(FieldReader(tree, "payload"), model);
}

std::string error_of(const json& payload) {
  return compact_error_of(payload, read_observation_compact, ModelKey{"prod", "qwen"});
}

}  // namespace

TEST_CASE("a compact observation is the same bytes from both writers and reads back through both readers, on every recorded input") {
  for_each_recorded_model([](const ModelTickInput& m) {
    const std::vector<std::uint8_t> bytes = compact_bytes(m);
    CHECK(bytes == json::to_msgpack(encode_observation_compact(m)));
    // Schema 1's writer as the judge of equal inputs: it writes every field.
    const std::vector<std::uint8_t> as_schema1 = encode_model_tick_input_msgpack(m);
    ModelTickInput direct;
    REQUIRE_NOTHROW(direct = read_direct(bytes, m.model));
    for (const ModelTickInput& read : {direct, read_tree(bytes, m.model)}) {
      CHECK(encode_model_tick_input_msgpack(read) == as_schema1);
      CHECK(compact_bytes(read) == bytes);
    }
  });
}

TEST_CASE("a compact observation keeps every double bit for bit: NaN, infinities, denormals, -0, whole and huge numbers") {
  const ModelTickInput written = sample_input().models[0];
  const std::vector<std::uint8_t> bytes = compact_bytes(written);
  for (const ModelTickInput& read : {read_direct(bytes, written.model), read_tree(bytes, written.model)}) {
    CHECK(read.model == written.model);
    CHECK(read.priority == 2);
    CHECK(bits(read.decode_queue) == bits(kNaN));
    CHECK(bits(read.arrival_rate_rps) == bits(kPointThree));
    CHECK(bits(read.upstream_queue) == bits(4.0));
    REQUIRE(read.variants.size() == 2);
    const VariantTickInput& v = read.variants[0];
    const VariantTickInput& w = written.variants[0];
    CHECK(v.state.spec.name == "h100");
    CHECK(v.state.spec.role == Role::kPrefill);
    CHECK(bits(v.state.spec.cost_per_replica) == bits(kPointThree));
    CHECK(bits(v.state.spec.kv_capacity_tokens) == bits(1.5e6));
    CHECK(v.state.spec.max_num_batched_tokens == 8192);
    CHECK(v.state.current_replicas == 2);
    CHECK(v.state.pending_replicas == 1);
    CHECK(v.state.desired_replicas == 3);
    CHECK(read.variants[1].state.desired_replicas == std::nullopt);
    CHECK(read.variants[1].state.spec.role == Role::kDecode);
    CHECK(bits(v.configured_cold_start_s) == bits(60.0));
    REQUIRE(v.new_cold_starts_s.size() == 2);
    CHECK(bits(v.new_cold_starts_s[1]) == bits(kPointThree));
    REQUIRE(v.state.pods.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) check_pod_bits(v.state.pods[i], w.state.pods[i]);
    CHECK(bits(v.state.pods[1].kv_usage) == bits(-0.0));  // not written as the integer 0
    CHECK(bits(v.state.pods[1].running) == bits(1e308));  // whole, but beyond an exact int64
    REQUIRE(v.forward_passes.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
      const ForwardPassSample& a = v.forward_passes[i];
      const ForwardPassSample& b = w.forward_passes[i];
      CHECK(a.pod == b.pod);
      for (auto field : {&ForwardPassSample::wall_time_ms, &ForwardPassSample::scheduled_prefill_tokens,
                         &ForwardPassSample::decode_kv_tokens, &ForwardPassSample::queued_requests,
                         &ForwardPassSample::running_requests, &ForwardPassSample::scheduled_prefill_requests,
                         &ForwardPassSample::queued_prefill_tokens, &ForwardPassSample::queued_decode_kv_tokens})
        CHECK(bits(a.*field) == bits(b.*field));
    }
  }
}

TEST_CASE("a compact observation is under half the bytes of schema 1's object on the recorded inputs") {
  std::size_t compact = 0, schema1 = 0;
  for_each_recorded_model([&](const ModelTickInput& m) {
    compact += compact_bytes(m).size();
    schema1 += encode_model_tick_input_msgpack(m).size();
  });
  CHECK(compact * 2 < schema1);
}

TEST_CASE("a compact observation of an unknown schema, or malformed, is refused naming the field") {
  const ModelTickInput m = sample_input().models[0];
  const json valid = encode_observation_compact(m);
  json o = valid;
  o[0] = 3;
  CHECK_THAT(error_of(o), Catch::Contains("payload.schema 3 is not an observation layout this build reads (1 or 2)"));
  CHECK_THROWS_AS(read_direct(json::to_msgpack(o), m.model), MsgpackMismatch);

  o = valid;
  o[5][0][1] = "gpu";
  CHECK_THAT(error_of(o), Catch::Contains("payload.variants[0].role must be a role (both, prefill or decode)"));
  CHECK_THROWS_AS(read_direct(json::to_msgpack(o), m.model), MsgpackMismatch);

  o = valid;
  o[5][0][15][1][7] = "full";
  CHECK_THAT(error_of(o), Catch::Contains("payload.variants[0].pods[1].kv_usage must be a number"));
  CHECK_THROWS_AS(read_direct(json::to_msgpack(o), m.model), MsgpackMismatch);

  o = valid;
  o[5][0][12] = 2.5;
  CHECK_THAT(error_of(o), Catch::Contains("payload.variants[0].desired_replicas"));
  CHECK_THROWS_AS(read_direct(json::to_msgpack(o), m.model), MsgpackMismatch);

  o = valid;
  o[5][0][16][0].erase(8);
  CHECK_THAT(error_of(o), Catch::Contains("payload.variants[0].forward_passes[0] must hold 9 elements"));

  o = valid;
  o[5][0][15][1][12][2] = "bounds";
  CHECK_THAT(error_of(o), Catch::Contains("payload.variants[0].pods[1].request_itl.upper_bounds_ms must be an array"));

  o = valid;
  o.erase(5);
  CHECK_THAT(error_of(o), Catch::Contains("payload must hold 6 elements"));
}

}  // namespace capstan
