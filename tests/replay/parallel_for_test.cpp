// A tick's models run on several threads give what they give in order: the same
// decisions, events and states, bit for bit, for every registered policy.
#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/codec/event_codec.hpp"
#include "domain/codec/state_codec.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/policies/policy.hpp"
#include "replay/parallel_for.hpp"
#include "sim/scenario.hpp"
#include "sim/scenario_runner.hpp"
#include "test_data.hpp"

using namespace capstan;

namespace {

// The recorded budget scenario's ticks for one policy (two models sharing a GPU
// budget), each model repeated `copies` times under its own name.
std::vector<TickInput> widened_budget_ticks(const std::string& policy, int copies) {
  std::ifstream in(testing::data_path("ticks/budget.jsonl"));
  REQUIRE(in);
  std::vector<TickInput> out;
  std::string line;
  while (std::getline(in, line)) {
    auto record = decode_tick_record(nlohmann::json::parse(line));
    REQUIRE(record.ok());
    if (record.value().policy != policy) continue;
    TickInput input = record.value().input;
    TickInput wide{input.now_s, input.interval_s, {}};
    for (int c = 0; c < copies; ++c) {
      for (ModelTickInput model : input.models) {
        model.model.model_id += "-" + std::to_string(c);
        wide.models.push_back(std::move(model));
      }
    }
    out.push_back(std::move(wide));
  }
  return out;
}

PolicyConfig budget_config() {
  auto scenario = sim::load_scenario(std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios/budget.yaml");
  REQUIRE(scenario.ok());
  auto prepared = sim::prepare_scenario(std::move(scenario).value());
  REQUIRE(prepared.ok());
  return sim::policy_config(prepared.value());
}

// Every tick's events (a decision is one of them) and the final states, encoded.
std::vector<std::string> run(const TickPolicy& policy, const std::string& name, const std::vector<TickInput>& ticks,
                             const PolicyConfig& config, const ForEachModel& for_each) {
  std::vector<std::string> out;
  FleetMemory memory;
  for (const TickInput& input : ticks) {
    TickResult result = run_tick(std::move(memory), policy, input, TickConfigs{config, {}}, for_each);
    for (const TickEvent& e : result.events) out.push_back(encode_event(e).dump());
    memory = std::move(result.next);
  }
  out.push_back(encode_fleet_memory(name, memory).dump());
  return out;
}

}  // namespace

TEST_CASE("every policy's tick is the same with its models on four threads as in order") {
  const PolicyConfig config = budget_config();
  for (const PolicyInfo& info : registered_policies()) {
    CAPTURE(info.name);
    const std::vector<TickInput> ticks = widened_budget_ticks(info.name, 8);
    REQUIRE(ticks.size() >= 10);
    const auto policy = info.make();
    const auto in_order = run(*policy, info.name, ticks, config, {});
    const auto at_once = run(*policy, info.name, ticks, config, parallel_for_each(4));
    REQUIRE(in_order.size() == at_once.size());
    for (std::size_t i = 0; i < in_order.size(); ++i) REQUIRE(in_order[i] == at_once[i]);
  }
}

TEST_CASE("parallel_for_each runs every index once, none for an empty range, and passes an exception on") {
  const ForEachModel for_each = parallel_for_each(3);
  std::vector<std::atomic<int>> calls(1000);
  for_each(calls.size(), [&](std::size_t i) { ++calls[i]; });
  for (const auto& c : calls) REQUIRE(c == 1);

  bool called = false;
  for_each(0, [&](std::size_t) { called = true; });
  REQUIRE_FALSE(called);

  REQUIRE_THROWS_WITH(for_each(100,
                               [](std::size_t i) {
                                 if (i == 57) throw std::runtime_error("model 57 failed");
                               }),
                      "model 57 failed");
}

TEST_CASE("parallel_for_each's threads serve call after call, after a failed one too, and a copy shares them") {
  const ForEachModel for_each = parallel_for_each(3);
  const ForEachModel copy = for_each;
  REQUIRE_THROWS(for_each(10, [](std::size_t) { throw std::runtime_error("x"); }));
  for (int call = 0; call < 500; ++call) {
    std::vector<std::atomic<int>> calls(static_cast<std::size_t>(call % 7));
    (call % 2 ? copy : for_each)(calls.size(), [&](std::size_t i) { ++calls[i]; });
    for (const auto& c : calls) REQUIRE(c == 1);
  }
}
