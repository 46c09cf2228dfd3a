// Saved state per policy (issue 19 targets: one variant's state at most 2 KiB as
// MessagePack; a model's save and restore each at most 20 us; at most 64 MiB resident at
// 1,000 variants including a save). 500 models of two variants, each a copy of the
// model the simulator recorded (recorded_fleet.hpp), run 25 ticks; then the fleet's
// state is saved (save_state + to_msgpack) and restored (from_msgpack + restore_state),
// timed per model. The peak RSS is measured from after the simulation that recorded
// the inputs, per policy.
// Run: build/bench/state_bench [TRACE]  (default: ops/examples/azure_code_15min.csv)
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recorded_fleet.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

constexpr std::size_t kModels = 500, kVariantsPerModel = 2;
constexpr std::size_t kTicks = 25;

std::size_t msgpack_size(const nlohmann::json& j) { return nlohmann::json::to_msgpack(j).size(); }

// Where one model's bytes go: its variants' memories and each part of its own state.
std::string breakdown_of(const nlohmann::json& state) {
  std::string out = "  one model, MessagePack bytes by part:";
  const auto part = [&](const std::string& name, const nlohmann::json& value) {
    out += " " + name + " " + std::to_string(msgpack_size(value));
  };
  const nlohmann::json& model = state.at("models").at(0);
  part("finisher", model.at("finisher"));
  for (const auto& [key, value] : model.at("policy").items()) part(key, value);
  for (std::size_t v = 0; v < kVariantsPerModel; ++v) {
    for (const auto& [key, value] : state.at("variants").at(v).at("memory").items()) part("variant." + key, value);
  }
  return out + "\n";
}

void measure(const PolicyInfo& info, const std::vector<TickInput>& recorded) {
  PolicyConfig config;
  config.slo = {2000, 100};
  const bool reset = bench::reset_peak_rss();
  double save_us = 0, restore_us = 0;
  std::size_t msgpack_bytes = 0, text_bytes = 0;
  std::string breakdown;
  {
    DrivenPolicy policy(info.make(), config);
    for (std::size_t t = 0; t < std::min(kTicks, recorded.size()); ++t) {
      bench::keep(policy.tick(
          bench::widened(recorded[t], static_cast<int>(kModels), static_cast<int>(kVariantsPerModel))));
    }
    std::vector<std::uint8_t> bytes;
    save_us = bench::median_ns_per_call(
                  [&](int) {
                    bytes = nlohmann::json::to_msgpack(policy.save_state());
                    bench::keep(bytes);
                  },
                  1, 0.5) /
              1000 / static_cast<double>(kModels);
    msgpack_bytes = bytes.size();
    const nlohmann::json state = policy.save_state();
    text_bytes = state.dump().size();
    breakdown = breakdown_of(state);
    DrivenPolicy restored(info.make(), config);
    restore_us = bench::median_ns_per_call(
                     [&](int) {
                       auto ok = restored.restore_state(nlohmann::json::from_msgpack(bytes));
                       if (!ok) std::printf("  restore failed: %s\n", ok.error().message.c_str());
                     },
                     1, 0.5) /
                 1000 / static_cast<double>(kModels);
  }
  const auto variants = static_cast<double>(kModels * kVariantsPerModel);
  std::printf("%-18s %10.0f %10.0f %12.1f %12.1f %10.1f\n", info.name.c_str(), msgpack_bytes / variants,
              text_bytes / variants, save_us, restore_us, reset ? bench::peak_rss_kib() / 1024.0 : -1.0);
  std::printf("%s", breakdown.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<TickInput> recorded = bench::simulated_ticks(argc > 1 ? argv[1] : "");
  if (recorded.empty()) return 1;
  std::printf("%zu models x %zu variants after %zu ticks; peak RSS of the simulation %.1f MiB\n", kModels,
              kVariantsPerModel, kTicks, bench::peak_rss_kib() / 1024.0);
  std::printf("%-18s %10s %10s %12s %12s %10s\n", "policy", "B msgpack", "B JSON", "save us", "restore us",
              "peak MiB");
  std::printf("%-18s %10s %10s %12s %12s %10s\n", "", "/variant", "/variant", "/model", "/model", "");
  for (const PolicyInfo& info : registered_policies()) measure(info, recorded);
  std::printf("targets: <= 2048 B msgpack per variant, save and restore <= 20 us per model, <= 64 MiB\n");
  return 0;
}
