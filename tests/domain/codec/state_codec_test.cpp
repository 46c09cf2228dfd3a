#include "domain/codec/state_codec.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
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

constexpr double kDenormMax = 2.2250738585072009e-308;
const double kPointThree = 0.1 + 0.2;

const ModelKey kLlama{"prod", "meta-llama/Llama-3.1-8B"};
const ModelKey kQwen{"prod", "qwen"};

TunerState sample_tuner() {
  TunerState t;
  t.params = {kPointThree, kDenormMin, 1e-300};
  t.covariance = {kPointThree, kDenormMin, -0.0, 1e308, kDenormMax, 1, 2, 3, 0.125};
  t.min_params = {0.5, 0.001, 1e-7};
  t.max_params = {500, 5, 0.1};
  t.accepted_updates = 12;
  t.rejected_updates = 2;
  t.consecutive_rejections = 1;
  return t;
}

ModelFinisherState sample_finisher() {
  ModelFinisherState f;
  f.enforcer.variants["h100"] = {1'700'000'000.25, {{1'700'000'000.0, 3}, {1'700'000'030.0, 4}}};
  f.enforcer.variants["a100"] = {std::nullopt, {}};
  f.last_good_target = {{"h100", 4}, {"a100", 0}};
  f.arrivals = {{1'700'000'000.0, kPointThree}, {1'700'000'030.0, kDenormMin}};
  return f;
}

// Two models under `policy`: Llama keeps `memory`, Qwen keeps none yet.
FleetMemory fleet_keeping(const PolicyMemory& memory) {
  FleetMemory m;
  m.variants[{kLlama, "h100"}] = {sample_tuner(), ColdStartState{60, {41.5, kPointThree, kDenormMax}}, 1'700'000'030.0};
  m.variants[{kLlama, "a100"}] = {std::nullopt, ColdStartState{90, {}}, std::nullopt};
  m.variants[{kQwen, "a100"}] = {};
  m.models[kLlama] = {sample_finisher(), memory};
  m.models[kQwen] = {};
  return m;
}

FixedMemory fixed_memory() { return {{{"h100", 4}, {"a100", 0}}}; }

HpaMemory hpa_memory() {
  HpaMemory m;
  m.variants["h100"].recommendations = {{1'700'000'000.0, 3}, {1'700'000'000.0 + kPointThree, 4}};
  m.variants["a100"] = {};
  return m;
}

ErlangMemory erlang_memory() {
  HoltState holt;
  holt.config = {0.3, 0.15};
  holt.count = 42;
  holt.level = kPointThree;
  holt.trend = -kDenormMin;
  return {holt};
}

struct PolicyCase {
  std::string policy;
  PolicyMemory memory;
};

std::vector<PolicyCase> policy_cases() {
  return {{"fixed", fixed_memory()}, {"hpa", hpa_memory()}, {"erlang", erlang_memory()}, {"erlang", ErlangMemory{}}};
}

std::string parent_of(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

// A member of a map keyed by variant name: absent means no state for that variant.
bool map_entry(const std::string& path) {
  const std::string parent = parent_of(path);
  return parent.ends_with(".policy.held") || parent.ends_with(".policy.variants");
}

// Sub-states read through their own nlohmann conversions: a fault inside one is named
// by the sub-state's path, and their members' presence is theirs to decide.
bool read_whole(const std::string& path) {
  return path.ends_with(".memory.tuner") || path.ends_with(".memory.cold_start") || path.ends_with(".finisher") ||
         path.ends_with(".policy.forecast") || map_entry(path);
}

std::optional<std::string> enclosing_sub_state(const std::string& path) {
  for (std::string p = parent_of(path); !p.empty(); p = parent_of(p)) {
    if (read_whole(p)) {
      const auto inner = enclosing_sub_state(p);
      return inner ? inner : std::optional<std::string>(p);
    }
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("a fleet memory encodes to the same JSON and MessagePack after a decode under each policy") {
  for (const PolicyCase& c : policy_cases()) {
    INFO(c.policy);
    const json encoded = encode_fleet_memory(c.policy, fleet_keeping(c.memory));
    CHECK(encoded.at("schema") == kStateSchema);
    const auto decoded = decode_fleet_memory(c.policy, json::parse(encoded.dump()));
    REQUIRE(decoded.ok());
    CHECK(encode_fleet_memory(c.policy, *decoded).dump() == encoded.dump());

    const std::vector<std::uint8_t> bytes = to_msgpack_bytes(encoded);
    const auto read = from_msgpack_bytes(bytes);
    REQUIRE(read.ok());
    const auto from_bytes = decode_fleet_memory(c.policy, *read);
    REQUIRE(from_bytes.ok());
    CHECK(to_msgpack_bytes(encode_fleet_memory(c.policy, *from_bytes)) == bytes);
  }
}

TEST_CASE("learned variant memories and finisher state read back equal with doubles bit for bit") {
  const FleetMemory written = fleet_keeping(fixed_memory());
  const json encoded = encode_fleet_memory("fixed", written);
  const auto through_msgpack = from_msgpack_bytes(to_msgpack_bytes(encoded));
  REQUIRE(through_msgpack.ok());
  for (const json& doc : {json::parse(encoded.dump()), *through_msgpack}) {
    const auto decoded = decode_fleet_memory("fixed", doc);
    REQUIRE(decoded.ok());
    CHECK(decoded->variants == written.variants);
    const TunerState& tuner = *decoded->variants.at({kLlama, "h100"}).tuner;
    const TunerState expected = sample_tuner();
    for (std::size_t i = 0; i < expected.covariance.size(); ++i) {
      INFO("covariance[" << i << "]");
      CHECK(bits(tuner.covariance[i]) == bits(expected.covariance[i]));
    }
    CHECK(bits(tuner.params.alpha_ms) == bits(kPointThree));
    CHECK(bits(tuner.params.beta_ms) == bits(kDenormMin));
    const ColdStartState& cold = *decoded->variants.at({kLlama, "h100"}).cold_start;
    CHECK(bits(cold.samples_s[1]) == bits(kPointThree));
    CHECK(bits(cold.samples_s[2]) == bits(kDenormMax));
    CHECK_FALSE(decoded->variants.at({kQwen, "a100"}).tuner.has_value());

    REQUIRE(decoded->models.size() == 2);
    const ModelState& llama = decoded->models.at(kLlama);
    CHECK(llama.finisher == sample_finisher());
    CHECK(bits(llama.finisher.arrivals[1].second) == bits(kDenormMin));
    CHECK(std::get<FixedMemory>(llama.policy) == fixed_memory());
    CHECK(std::holds_alternative<std::monostate>(decoded->models.at(kQwen).policy));
  }
}

TEST_CASE("hpa and erlang memories read back equal") {
  const auto hpa = decode_fleet_memory("hpa", encode_fleet_memory("hpa", fleet_keeping(hpa_memory())));
  REQUIRE(hpa.ok());
  const auto& variants = std::get<HpaMemory>(hpa->models.at(kLlama).policy).variants;
  CHECK(variants == hpa_memory().variants);
  CHECK(bits(variants.at("h100").recommendations[1].at_s) == bits(1'700'000'000.0 + kPointThree));

  const auto erlang = decode_fleet_memory("erlang", encode_fleet_memory("erlang", fleet_keeping(erlang_memory())));
  REQUIRE(erlang.ok());
  const auto& holt = std::get<ErlangMemory>(erlang->models.at(kLlama).policy).forecast;
  REQUIRE(holt.has_value());
  CHECK(holt->count == 42);
  CHECK(holt->config.alpha == 0.3);
  CHECK(bits(holt->level) == bits(kPointThree));
  CHECK(bits(holt->trend) == bits(-kDenormMin));

  const auto unmade = decode_fleet_memory("erlang", encode_fleet_memory("erlang", fleet_keeping(ErlangMemory{})));
  REQUIRE(unmade.ok());
  CHECK_FALSE(std::get<ErlangMemory>(unmade->models.at(kLlama).policy).forecast.has_value());
}

TEST_CASE("a fleet memory missing a field is refused naming its path") {
  for (const PolicyCase& c : policy_cases()) {
    const json valid = encode_fleet_memory(c.policy, fleet_keeping(c.memory));
    std::vector<Field> fields;
    collect_fields(valid, "", json::json_pointer(), fields);
    for (const Field& f : fields) {
      if (map_entry(f.path) || enclosing_sub_state(f.path)) continue;
      if (f.path.ends_with(".waited_at_s")) continue;  // optional: absent when no backlog was held lately
      json doc = valid;
      doc[f.pointer.parent_pointer()].erase(f.pointer.back());
      const auto decoded = decode_fleet_memory(c.policy, doc);
      INFO(c.policy << ": deleted " << f.path);
      REQUIRE_FALSE(decoded.ok());
      CHECK(names_field(decoded.error().message, f.path));
    }
  }
}

TEST_CASE("a fleet memory with a field of the wrong type is refused naming its path or its sub-state") {
  for (const PolicyCase& c : policy_cases()) {
    const json valid = encode_fleet_memory(c.policy, fleet_keeping(c.memory));
    std::vector<Field> fields;
    collect_fields(valid, "", json::json_pointer(), fields);
    for (const Field& f : fields) {
      json doc = valid;
      doc[f.pointer] = wrong_type_for(valid[f.pointer]);
      const auto decoded = decode_fleet_memory(c.policy, doc);
      const std::string named = enclosing_sub_state(f.path).value_or(f.path);
      INFO(c.policy << ": " << f.path << " = " << doc[f.pointer].dump() << ", expecting " << named);
      REQUIRE_FALSE(decoded.ok());
      CHECK(names_field(decoded.error().message, named));
    }
  }
}

TEST_CASE("the state of another policy is refused") {
  const json fixed = encode_fleet_memory("fixed", fleet_keeping(fixed_memory()));
  const auto decoded = decode_fleet_memory("hpa", fixed);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("policy is another policy's state, got \"fixed\""));

  // A document relabelled by hand still holds the other policy's memory.
  json relabelled = fixed;
  relabelled["policy"] = "hpa";
  const auto mixed = decode_fleet_memory("hpa", relabelled);
  REQUIRE_FALSE(mixed.ok());
  CHECK_THAT(mixed.error().message, Catch::Contains("models[0].policy.kind is not the memory of policy \"hpa\""));
}

TEST_CASE("an unknown kind of policy memory is refused naming kind") {
  json doc = encode_fleet_memory("oracle", fleet_keeping(fixed_memory()));
  doc["models"][0]["policy"]["kind"] = "oracle";
  const auto decoded = decode_fleet_memory("oracle", doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("models[0].policy.kind is not a kind of policy memory"));
}

TEST_CASE("a fleet memory of an unknown schema version is refused naming schema") {
  json doc = encode_fleet_memory("fixed", fleet_keeping(fixed_memory()));
  doc["schema"] = 7;
  const auto decoded = decode_fleet_memory("fixed", doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("schema 7 is not a version this build reads (" +
                                                     std::to_string(kStateSchema) + ")"));
}

TEST_CASE("a document that is no fleet memory is refused without throwing") {
  for (const json& doc : {json(), json(false), json("state"), json::array(), json::object()}) {
    INFO(doc.dump());
    CHECK_NOTHROW(decode_fleet_memory("fixed", doc));
    CHECK_FALSE(decode_fleet_memory("fixed", doc).ok());
  }
}

TEST_CASE("non-finite figures inside learned states survive the JSON text form") {
  FleetMemory m = fleet_keeping(erlang_memory());
  TunerState& t = *m.variants.at({kLlama, "h100"}).tuner;
  t.covariance[4] = kNaN;
  t.params.gamma_ms = kInf;
  std::get<ErlangMemory>(m.models.at(kLlama).policy).forecast->trend = -kInf;
  const std::string text = encode_fleet_memory("erlang", m).dump();
  auto decoded = decode_fleet_memory("erlang", json::parse(text));
  REQUIRE(decoded.ok());
  const TunerState& read = *decoded->variants.at({kLlama, "h100"}).tuner;
  CHECK(std::isnan(read.covariance[4]));
  CHECK(read.params.gamma_ms == kInf);
  CHECK(std::get<ErlangMemory>(decoded->models.at(kLlama).policy).forecast->trend == -kInf);
  CHECK(encode_fleet_memory("erlang", decoded.value()).dump() == text);
}

TEST_CASE("a learned parameter store without its update counters is refused") {
  json doc = encode_fleet_memory("erlang", fleet_keeping(erlang_memory()));
  doc["variants"][1]["memory"]["tuner"].erase("accepted_updates");
  auto decoded = decode_fleet_memory("erlang", doc);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("accepted_updates"));
}

}  // namespace capstan
