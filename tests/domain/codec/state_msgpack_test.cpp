#include "domain/codec/state_msgpack.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/msgpack.hpp"
#include "domain/codec/state_codec.hpp"
#include "domain/codec/tick_input_test_support.hpp"
#include "domain/forecast/predictor.hpp"
#include "domain/policies/policy.hpp"
#include "domain/policies/policy_memories.hpp"
#include "domain/tick/tick_driver.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using testing::recorded_inputs;

// Every policy's states after every tick of the recordings, and a few states by hand.
template <class Check>
void for_each_recorded_state(Check check) {
  for (const std::string recording : {"budget", "disagg", "stale-gap"}) {
    const std::vector<TickInput> inputs = recorded_inputs(recording);
    for (const PolicyInfo& info : registered_policies()) {
      DrivenPolicy policy(info.make(), PolicyConfig{});
      for (std::size_t t = 0; t < inputs.size(); ++t) {
        policy.tick(inputs[t]);
        INFO(recording << " " << info.name << " after tick " << t);
        check(policy);
      }
    }
  }
}

}  // namespace

TEST_CASE("the MessagePack state writer gives the bytes of the JSON document converted, under every policy") {
  for_each_recorded_state([](const DrivenPolicy& policy) {
    CHECK(policy.save_state_msgpack() == json::to_msgpack(policy.save_state()));
  });
}

TEST_CASE("the MessagePack state reader reads back what the JSON reader reads, under every policy") {
  for_each_recorded_state([](const DrivenPolicy& policy) {
    const std::vector<std::uint8_t> bytes = policy.save_state_msgpack();
    const auto fast = decode_fleet_memory_msgpack(policy.name(), bytes);
    REQUIRE(fast.ok());
    const auto slow = decode_fleet_memory(policy.name(), json::from_msgpack(bytes));
    REQUIRE(slow.ok());
    CHECK(encode_fleet_memory(policy.name(), fast.value()) == encode_fleet_memory(policy.name(), slow.value()));
    CHECK(encode_fleet_memory_msgpack(policy.name(), fast.value()) == bytes);
  });
}

TEST_CASE("a state in another layout than the writer's is still read as the JSON reader reads it") {
  const std::vector<TickInput> inputs = recorded_inputs("budget");
  DrivenPolicy policy(find_policy("hybrid").value(), PolicyConfig{});
  for (const TickInput& in : inputs) policy.tick(in);
  json doc = policy.save_state();
  doc["schema"] = static_cast<double>(kStateSchema);  // a float where the writer writes an integer
  doc["extra"] = "ignored";                           // a member the writer does not write
  const auto read = decode_fleet_memory_msgpack("hybrid", json::to_msgpack(doc));
  REQUIRE(read.ok());
  CHECK(encode_fleet_memory_msgpack("hybrid", read.value()) == policy.save_state_msgpack());
}

TEST_CASE("a malformed MessagePack state is refused naming the field, and a restore keeps the state it had") {
  const std::vector<TickInput> inputs = recorded_inputs("budget");
  DrivenPolicy policy(find_policy("hybrid").value(), PolicyConfig{});
  for (const TickInput& in : inputs) policy.tick(in);
  const std::vector<std::uint8_t> before = policy.save_state_msgpack();

  json doc = policy.save_state();
  doc["models"][0]["policy"]["recent_demand"] = "not a history";
  auto refused = policy.restore_state_msgpack(json::to_msgpack(doc));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("models[0].policy.recent_demand"));

  doc = policy.save_state();
  doc["schema"] = kStateSchema + 1;
  refused = policy.restore_state_msgpack(json::to_msgpack(doc));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("is not a version this build reads"));

  std::vector<std::uint8_t> truncated = before;
  truncated.resize(truncated.size() / 2);
  refused = policy.restore_state_msgpack(truncated);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("MessagePack"));

  CHECK(policy.save_state_msgpack() == before);
}

namespace {

// What hybrid remembers after the `budget` recording, read back from its MessagePack state.
Result<FleetMemory> hybrid_after_budget() {
  DrivenPolicy policy(find_policy("hybrid").value(), PolicyConfig{});
  for (const TickInput& in : recorded_inputs("budget")) policy.tick(in);
  return decode_fleet_memory_msgpack("hybrid", policy.save_state_msgpack());
}

}  // namespace

TEST_CASE("hybrid's learned headroom is written as the JSON document converted, read back, and refused out of range") {
  auto memory = hybrid_after_budget();
  REQUIRE(memory.ok());
  REQUIRE_FALSE(memory.value().models.empty());
  HybridMemory& hybrid = std::get<HybridMemory>(memory.value().models.begin()->second.policy);
  hybrid.headroom = {1234.5, 61.25, 0.2, 7200.5};

  const std::vector<std::uint8_t> bytes = encode_fleet_memory_msgpack("hybrid", memory.value());
  CHECK(bytes == json::to_msgpack(encode_fleet_memory("hybrid", memory.value())));
  const auto read = decode_fleet_memory_msgpack("hybrid", bytes);
  REQUIRE(read.ok());
  CHECK(std::get<HybridMemory>(read.value().models.begin()->second.policy).headroom == hybrid.headroom);

  json doc = encode_fleet_memory("hybrid", memory.value());
  doc["models"][0]["policy"]["headroom"][2] = 0.9;
  auto refused = decode_fleet_memory_msgpack("hybrid", json::to_msgpack(doc));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("models[0].policy.headroom[2]"));
  doc["models"][0]["policy"]["headroom"] = {10, 20, 0.1, 0};  // more missed than served
  refused = decode_fleet_memory_msgpack("hybrid", json::to_msgpack(doc));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("models[0].policy.headroom"));
}

}  // namespace capstan

namespace capstan {

TEST_CASE("hybrid's rates met and missed per variant are written as the JSON document converted, and read back") {
  auto memory = hybrid_after_budget();
  REQUIRE(memory.ok());
  REQUIRE_FALSE(memory.value().models.empty());
  HybridMemory& hybrid = std::get<HybridMemory>(memory.value().models.begin()->second.policy);
  hybrid.met["llama70b-h100"] = {{150, 2.87778, 1100, 230}, {180, 2.5, 1200, 240}};
  hybrid.refuted["llama70b-a100"] = {{150, 1.83333, 1016.9, 261.44}};

  const std::vector<std::uint8_t> bytes = encode_fleet_memory_msgpack("hybrid", memory.value());
  CHECK(bytes == json::to_msgpack(encode_fleet_memory("hybrid", memory.value())));
  const json doc = encode_fleet_memory("hybrid", memory.value());
  CHECK(doc["models"][0]["policy"]["met"]["llama70b-h100"][0] == json::array({150, 2.87778, 1100, 230}));
  for (const auto& read : {decode_fleet_memory_msgpack("hybrid", bytes), decode_fleet_memory("hybrid", doc)}) {
    REQUIRE(read.ok());
    const HybridMemory& back = std::get<HybridMemory>(read.value().models.begin()->second.policy);
    CHECK(back.met == hybrid.met);
    CHECK(back.refuted == hybrid.refuted);
  }
  // None met: the member is left out, as a state before it was.
  hybrid.met.clear();
  CHECK_FALSE(encode_fleet_memory("hybrid", memory.value())["models"][0]["policy"].contains("met"));
}

TEST_CASE("a restart from MessagePack state after any tick decides every later tick as an uninterrupted run") {
  for (const std::string recording : {"budget", "disagg", "stale-gap"}) {
    const std::vector<TickInput> inputs = recorded_inputs(recording);
    for (const PolicyInfo& info : registered_policies()) {
      for (std::size_t k = 1; k < inputs.size(); k += 3) {
        DrivenPolicy whole(info.make(), PolicyConfig{});
        DrivenPolicy before(info.make(), PolicyConfig{});
        for (std::size_t t = 0; t < k; ++t) {
          whole.tick(inputs[t]);
          before.tick(inputs[t]);
        }
        DrivenPolicy after(info.make(), PolicyConfig{});
        REQUIRE(after.restore_state_msgpack(before.save_state_msgpack()).ok());
        for (std::size_t t = k; t < inputs.size(); ++t) {
          INFO(recording << " " << info.name << " restarted after tick " << k << ", tick " << t);
          REQUIRE(after.tick(inputs[t]) == whole.tick(inputs[t]));
        }
        CHECK(after.save_state_msgpack() == whole.save_state_msgpack());
      }
    }
  }
}

}  // namespace capstan

namespace capstan {

TEST_CASE("a fitted ARIMA forecaster is read straight from MessagePack as the JSON reader reads it") {
  // The recordings are too short for ARIMA to fit, so the throughput states they leave
  // get forecasters that have seen a long series: fitted, with their regression sums.
  const std::vector<TickInput> inputs = testing::recorded_inputs("budget");
  DrivenPolicy policy(find_policy("throughput").value(), PolicyConfig{});
  for (const TickInput& in : inputs) policy.tick(in);
  FleetMemory memory = decode_fleet_memory_msgpack("throughput", policy.save_state_msgpack()).value();
  PredictorState fitted = make_predictor(PredictorKind::kArima).value();
  auto& arima = std::get<ArimaState>(fitted.model);
  for (int t = 0; t < 80; ++t) arima = observe(arima, 10 + 3 * std::sin(t / 5.0) + 0.1 * t);
  REQUIRE(arima.fitted);
  int replaced = 0;
  for (auto& [key, model] : memory.models) {
    for (auto& [name, variant] : std::get<ThroughputMemory>(model.policy).variants) {
      if (!variant.forecast) continue;
      for (SelectorState* s : {&variant.forecast->rate_rps, &variant.forecast->avg_input_tokens,
                               &variant.forecast->avg_output_tokens}) {
        for (SelectorCandidate& c : s->candidates) {
          c.predictor = fitted;
          ++replaced;
        }
      }
    }
  }
  REQUIRE(replaced > 0);
  const std::vector<std::uint8_t> bytes = encode_fleet_memory_msgpack("throughput", memory);
  CHECK(bytes == json::to_msgpack(encode_fleet_memory("throughput", memory)));
  const auto fast = decode_fleet_memory_msgpack("throughput", bytes);
  REQUIRE(fast.ok());
  const auto slow = decode_fleet_memory("throughput", json::from_msgpack(bytes));
  REQUIRE(slow.ok());
  CHECK(encode_fleet_memory("throughput", fast.value()) == encode_fleet_memory("throughput", slow.value()));
  CHECK(encode_fleet_memory_msgpack("throughput", fast.value()) == bytes);
}

}  // namespace capstan

namespace capstan {

TEST_CASE("a state saved under schema 3 restores to the state a run of this build holds, and decides on the same") {
  for (const auto& [recording, policy_name] : {std::pair{"budget", "throughput"}, std::pair{"budget", "load"},
                                                std::pair{"disagg", "hybrid"}, std::pair{"disagg", "throughput"}}) {
    INFO(recording << " " << policy_name);
    const json old = testing::load_json(std::string("state/schema3-") + recording + "-" + policy_name + ".json");
    REQUIRE(old.at("schema") == 3);
    const std::vector<TickInput> inputs = recorded_inputs(recording);
    constexpr std::size_t kSavedAfter = 10;
    DrivenPolicy whole(find_policy(policy_name).value(), PolicyConfig{});
    for (std::size_t t = 0; t < kSavedAfter; ++t) whole.tick(inputs[t]);
    DrivenPolicy from_json(find_policy(policy_name).value(), PolicyConfig{});
    REQUIRE(from_json.restore_state(old).ok());
    DrivenPolicy from_msgpack(find_policy(policy_name).value(), PolicyConfig{});
    REQUIRE(from_msgpack.restore_state_msgpack(json::to_msgpack(old)).ok());
    // When a variant's pods last held a backlog (VariantMemory::waited_at_s) came after
    // schema 3: an old state cannot know it, and restores without it.
    json held = whole.save_state();
    for (json& v : held.at("variants")) v.at("memory").erase("waited_at_s");
    CHECK(from_json.save_state() == held);
    CHECK(from_msgpack.save_state() == held);
    CHECK(from_json.save_state_msgpack() == json::to_msgpack(held));
    for (std::size_t t = kSavedAfter; t < inputs.size(); ++t) {
      INFO("tick " << t);
      const auto decided = whole.tick(inputs[t]);
      CHECK(from_json.tick(inputs[t]) == decided);
      CHECK(from_msgpack.tick(inputs[t]) == decided);
    }
  }
}

}  // namespace capstan

namespace capstan {

namespace {

// Throughput's state after the budget recording, as a document.
json throughput_state() {
  DrivenPolicy policy(find_policy("throughput").value(), PolicyConfig{});
  for (const TickInput& in : recorded_inputs("budget")) policy.tick(in);
  return policy.save_state();
}

}  // namespace

TEST_CASE("a malformed regression record in a MessagePack state is refused naming the field, and the state kept") {
  const json valid = throughput_state();
  DrivenPolicy policy(find_policy("throughput").value(), PolicyConfig{});
  REQUIRE(policy.restore_state(valid).ok());
  const std::vector<std::uint8_t> before = policy.save_state_msgpack();
  const std::string variant = valid["models"][0]["policy"]["variants"].begin().key();
  const std::string path = "models[0].policy.variants." + variant + ".load";
  const auto refusal = [&](const std::string& field, const json& value) {
    json doc = valid;
    doc[json::json_pointer("/models/0/policy/variants/" + variant + "/load/regression" + field)] = value;
    const auto refused = policy.restore_state_msgpack(json::to_msgpack(doc));
    REQUIRE_FALSE(refused.ok());
    return refused.error().message;
  };
  CHECK_THAT(refusal("/sample_columns/3", {1}),
             Catch::Contains(path) && Catch::Contains("decode_requests must hold one count per sample"));
  CHECK_THAT(refusal("/sample_columns/3/0", -1),
             Catch::Contains(path) && Catch::Contains("decode_requests: -1 is not an integer >= 0"));
  CHECK_THAT(refusal("/prefill_per_iter_from", 1000),
             Catch::Contains(path) && Catch::Contains("prefill_per_iter_from must be at most"));
  CHECK_THAT(refusal("/sample_columns", json::array()), Catch::Contains(path) && Catch::Contains("sample_columns must be"));
  CHECK(policy.save_state_msgpack() == before);
}

TEST_CASE("throughput's tuner keeps a symmetric covariance's upper triangle only, any other in full, both read back") {
  FleetMemory memory = decode_fleet_memory("throughput", throughput_state()).value();
  auto& variants = std::get<ThroughputMemory>(memory.models.begin()->second.policy).variants;
  ThroughputVariantState& variant = variants.begin()->second;
  REQUIRE(variant.tuner.has_value());
  const std::string path = "models[0].policy.variants." + variants.begin()->first + ".tuner";
  const auto tuner_numbers = [&] {
    return encode_fleet_memory("throughput", memory)["models"][0]["policy"]["variants"][variants.begin()->first]["tuner"];
  };
  const auto round_trips = [&] {
    const std::vector<std::uint8_t> bytes = encode_fleet_memory_msgpack("throughput", memory);
    CHECK(bytes == json::to_msgpack(encode_fleet_memory("throughput", memory)));
    const auto read = decode_fleet_memory_msgpack("throughput", bytes);
    REQUIRE(read.ok());
    const TunerState& t = *std::get<ThroughputMemory>(read->models.begin()->second.policy).variants.begin()->second.tuner;
    for (std::size_t i = 0; i < 9; ++i) CHECK(testing::bits(t.covariance[i]) == testing::bits(variant.tuner->covariance[i]));
    CHECK(encode_fleet_memory_msgpack("throughput", read.value()) == bytes);
  };
  variant.tuner->covariance = {0.5, testing::kPointThree, -0.0, testing::kPointThree, 2, 1e-300, -0.0, 1e-300, 3};
  CHECK(tuner_numbers().size() == 18);
  round_trips();
  variant.tuner->covariance[6] = 0.0;  // -0 above the diagonal, +0 below: not symmetric bit for bit
  CHECK(tuner_numbers().size() == 21);
  round_trips();

  json doc = encode_fleet_memory("throughput", memory);
  doc["models"][0]["policy"]["variants"][variants.begin()->first]["tuner"].erase(0);
  const auto refused = decode_fleet_memory_msgpack("throughput", json::to_msgpack(doc));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains(path) && Catch::Contains("covariance (upper triangle, 6, or all 9)"));
}

}  // namespace capstan
