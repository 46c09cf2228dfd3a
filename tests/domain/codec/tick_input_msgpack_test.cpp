#include "domain/codec/tick_input_msgpack.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/tick_input_test_support.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using namespace capstan::testing;

std::vector<std::uint8_t> through_tree(const ModelTickInput& m) { return json::to_msgpack(encode_model_tick_input(m)); }

}  // namespace

TEST_CASE("the MessagePack tick input writer gives the bytes of the JSON document converted, on every recorded input") {
  for_each_recorded_model([](const ModelTickInput& m) { CHECK(encode_model_tick_input_msgpack(m) == through_tree(m)); });
}

TEST_CASE("the MessagePack tick input reader takes the writer's layout directly and reads it back to the same bytes") {
  for_each_recorded_model([](const ModelTickInput& m) {
    const std::vector<std::uint8_t> bytes = encode_model_tick_input_msgpack(m);
    MsgpackReader r(bytes);
    ModelTickInput direct;
    REQUIRE_NOTHROW(direct = read_model_tick_input_msgpack(r));  // no detour through the tree
    CHECK(r.at_end());
    CHECK(encode_model_tick_input_msgpack(direct) == bytes);

    const auto decoded = decode_model_tick_input_msgpack(bytes);
    REQUIRE(decoded.ok());
    CHECK(encode_model_tick_input_msgpack(*decoded) == bytes);
    const auto tree = decode_model_tick_input(json::from_msgpack(bytes));
    REQUIRE(tree.ok());
    CHECK(encode_model_tick_input_msgpack(*tree) == bytes);
  });
}

TEST_CASE("pod metrics and forward passes read back bit for bit with NaN infinities denormals and -0") {
  const ModelTickInput written = sample_input().models[0];
  const auto decoded = decode_model_tick_input_msgpack(encode_model_tick_input_msgpack(written));
  REQUIRE(decoded.ok());
  const ModelTickInput& read = *decoded;
  CHECK(read.model == written.model);
  CHECK(bits(read.decode_queue) == bits(kNaN));
  CHECK(bits(read.arrival_rate_rps) == bits(kPointThree));
  CHECK(read.priority == 2);
  REQUIRE(read.variants.size() == 2);
  const VariantTickInput& v = read.variants[0];
  REQUIRE(v.state.pods.size() == 2);
  check_pod_bits(v.state.pods[0], written.variants[0].state.pods[0]);
  check_pod_bits(v.state.pods[1], written.variants[0].state.pods[1]);
  CHECK(bits(v.state.pods[1].kv_usage) == bits(-0.0));
  REQUIRE(v.forward_passes.size() == 2);
  CHECK(bits(v.forward_passes[1].wall_time_ms) == bits(kNaN));
  CHECK(bits(v.forward_passes[1].decode_kv_tokens) == bits(kInf));
  CHECK(bits(v.forward_passes[1].queued_decode_kv_tokens) == bits(kPointThree));
  CHECK(v.forward_passes[0].pod == "h100-1");
  CHECK(bits(v.new_cold_starts_s[1]) == bits(kPointThree));
  CHECK(bits(v.state.spec.cost_per_replica) == bits(kPointThree));
  CHECK(v.state.spec.role == Role::kPrefill);
  CHECK(v.state.spec.max_num_batched_tokens == 8192);
  CHECK(v.state.current_replicas == 2);
  CHECK(v.state.pending_replicas == 1);
  CHECK(v.state.desired_replicas == 3);
  CHECK_FALSE(read.variants[1].state.desired_replicas.has_value());
  CHECK(read.variants[1].state.spec.role == Role::kDecode);
}

TEST_CASE("a tick input in another layout than the writer's is still read as the JSON reader reads it") {
  const ModelTickInput m = sample_input().models[0];
  json doc = encode_model_tick_input(m);
  doc["priority"] = 2.0;                                  // a float where the writer writes an integer
  doc["variants"][0]["spec"]["unknown_member"] = "kept out";  // a member the writer does not write
  doc["variants"][0]["pods"][0]["request_itl"] = {{"upper_bounds_ms", json::array()},
                                                  {"cumulative", json::array()},
                                                  {"count", 0},
                                                  {"sum_ms", 0}};  // an empty histogram written out
  const auto read = decode_model_tick_input_msgpack(json::to_msgpack(doc));
  REQUIRE(read.ok());
  CHECK(encode_model_tick_input_msgpack(read.value()) == encode_model_tick_input_msgpack(m));
}

TEST_CASE("a MessagePack model tick input missing a field or holding one of the wrong type is refused naming its path") {
  check_every_field_refused(encode_model_tick_input(sample_input().models[0]),
                            [](const json& j) { return decode_model_tick_input_msgpack(json::to_msgpack(j)); });
}

TEST_CASE("a MessagePack model tick input of an unknown schema version is refused naming schema") {
  json doc = encode_model_tick_input(sample_input().models[0]);
  doc["schema"] = 2;
  const auto read = decode_model_tick_input_msgpack(json::to_msgpack(doc));
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(read.error().message, Catch::Contains("schema 2 is not a version this build reads (1)"));
}

TEST_CASE("truncated bytes, trailing bytes and an array longer than its record are refused without throwing") {
  const std::vector<std::uint8_t> bytes = encode_model_tick_input_msgpack(sample_input().models[0]);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    INFO(n << " of " << bytes.size() << " bytes");
    Result<ModelTickInput> read = invalid_argument("not read");
    REQUIRE_NOTHROW(read = decode_model_tick_input_msgpack(prefix));
    CHECK_FALSE(read.ok());
  }

  std::vector<std::uint8_t> trailing = bytes;
  trailing.push_back(0xC0);
  CHECK_FALSE(decode_model_tick_input_msgpack(trailing).ok());

  // "variants" is the last member: its list claims 2^32 - 1 elements the record lacks.
  ModelTickInput none = sample_input().models[1];
  none.variants.clear();
  std::vector<std::uint8_t> huge = encode_model_tick_input_msgpack(none);
  REQUIRE(huge.back() == 0x90);  // an empty fixarray
  huge.back() = 0xDD;
  huge.insert(huge.end(), {0xFF, 0xFF, 0xFF, 0xFF});
  Result<ModelTickInput> read = invalid_argument("not read");
  REQUIRE_NOTHROW(read = decode_model_tick_input_msgpack(huge));
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(read.error().message, Catch::Contains("MessagePack"));
}

}  // namespace capstan
