// Saved state per policy (issue 19 targets: one variant's state at most 2 KiB as
// MessagePack; a model's save and restore each at most 20 us; at most 64 MiB resident at
// 1,000 variants including a save). 500 models of two variants, each a copy of the
// model the simulator recorded (recorded_fleet.hpp), run 25 ticks; then the fleet's
// state is saved and restored straight to and from MessagePack bytes (state_msgpack.hpp),
// as a snapshot is written and read, timed per model in the thread's CPU time (so that
// other processes on a shared machine do not count; alone, it equals wall time). The peak RSS is measured from after the simulation that
// recorded the inputs, per policy, over the ticks, a save and a restore.
// The bytes are also measured after each of 20..30 ticks, the largest reported.
// Run: build/bench/state_bench [--dump POLICY] [TRACE]
//   (default trace: ops/examples/azure_code_15min.csv; --dump prints one model's state)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "recorded_fleet.hpp"
#include "timer.hpp"

using namespace capstan;

namespace {

constexpr std::size_t kModels = 500, kVariantsPerModel = 2;
constexpr std::size_t kTicks = 25;
// The saved state is largest at some tick, not at kTicks (throughput's ARIMA keeps its
// warm-up history until its first fit, at 30 points): the largest over these counts of
// ticks is reported too.
constexpr std::size_t kFirstSizedTick = 20, kLastSizedTick = 30;

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

// The largest MessagePack bytes per variant after kFirstSizedTick..kLastSizedTick ticks,
// and after how many.
std::pair<double, std::size_t> largest_state(const PolicyInfo& info, const std::vector<TickInput>& recorded,
                                             const PolicyConfig& config) {
  DrivenPolicy policy(info.make(), config);
  std::pair<double, std::size_t> largest{0, 0};
  for (std::size_t t = 0; t < std::min(kLastSizedTick, recorded.size()); ++t) {
    bench::keep(policy.tick(
        bench::widened(recorded[t], static_cast<int>(kModels), static_cast<int>(kVariantsPerModel))));
    if (t + 1 < kFirstSizedTick) continue;
    const double bytes = static_cast<double>(policy.save_state_msgpack().size()) / (kModels * kVariantsPerModel);
    if (bytes > largest.first) largest = {bytes, t + 1};
  }
  return largest;
}

void measure(const PolicyInfo& info, const std::vector<TickInput>& recorded, bool dump) {
  PolicyConfig config;
  config.slo = {2000, 100};
  const bool reset = bench::reset_peak_rss();
  double save_us = 0, restore_us = 0;
  double peak_mib = -1;
  std::size_t msgpack_bytes = 0, text_bytes = 0;
  std::string breakdown;
  {
    DrivenPolicy policy(info.make(), config);
    for (std::size_t t = 0; t < std::min(kTicks, recorded.size()); ++t) {
      bench::keep(policy.tick(
          bench::widened(recorded[t], static_cast<int>(kModels), static_cast<int>(kVariantsPerModel))));
    }
    std::vector<std::uint8_t> bytes;
    save_us = bench::median_cpu_ns_per_call(
                  [&](int) {
                    bytes = policy.save_state_msgpack();
                    bench::keep(bytes);
                  },
                  1, 0.5) /
              1000 / static_cast<double>(kModels);
    msgpack_bytes = bytes.size();
    DrivenPolicy restored(info.make(), config);
    restore_us = bench::median_cpu_ns_per_call(
                     [&](int) {
                       auto ok = restored.restore_state_msgpack(bytes);
                       if (!ok) std::printf("  restore failed: %s\n", ok.error().message.c_str());
                     },
                     1, 0.5) /
                 1000 / static_cast<double>(kModels);
    // The peak of the ticks, a save and a restore; the JSON text and the breakdown
    // below are figures about the record, not part of saving it.
    if (reset) peak_mib = bench::peak_rss_kib() / 1024.0;
    const nlohmann::json state = policy.save_state();
    if (nlohmann::json::to_msgpack(state) != bytes) std::printf("  MessagePack differs from the JSON document's\n");
    if (restored.save_state_msgpack() != bytes) std::printf("  the restored state saves to other bytes\n");
    text_bytes = state.dump().size();
    breakdown = breakdown_of(state);
    if (dump) {
      nlohmann::json one = {{"variants", {state.at("variants").at(0), state.at("variants").at(1)}},
                            {"model", state.at("models").at(0)}};
      std::printf("%s\n", one.dump().c_str());
    }
  }
  const auto variants = static_cast<double>(kModels * kVariantsPerModel);
  const auto [largest_bytes, largest_at] = largest_state(info, recorded, config);
  std::printf("%-18s %10.0f %10.0f %12.1f %12.1f %10.1f %8.0f at %2zu\n", info.name.c_str(), msgpack_bytes / variants,
              text_bytes / variants, save_us, restore_us, peak_mib, largest_bytes, largest_at);
  std::printf("%s", breakdown.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // --dump POLICY prints one model's state of that policy as JSON.
  std::string dump_policy;
  if (argc > 2 && std::string(argv[1]) == "--dump") {
    dump_policy = argv[2];
    argv += 2;
    argc -= 2;
  }
  const std::vector<TickInput> recorded = bench::simulated_ticks(argc > 1 ? argv[1] : "");
  if (recorded.empty()) return 1;
  std::printf("%zu models x %zu variants after %zu ticks; peak RSS of the simulation %.1f MiB\n", kModels,
              kVariantsPerModel, kTicks, bench::peak_rss_kib() / 1024.0);
  std::printf("%-18s %10s %10s %12s %12s %10s %14s\n", "policy", "B msgpack", "B JSON", "save CPU us", "restore CPU us",
              "peak MiB", "largest B");
  std::printf("%-18s %10s %10s %12s %12s %10s %14s\n", "", "/variant", "/variant", "/model", "/model", "",
              "/variant, tick");
  for (const PolicyInfo& info : registered_policies()) {
    if (dump_policy.empty() || dump_policy == info.name) measure(info, recorded, !dump_policy.empty());
  }
  std::printf("largest B: the most over %zu..%zu ticks (at that count)\n", kFirstSizedTick, kLastSizedTick);
  std::printf("targets: <= 2048 B msgpack per variant (at every tick), save and restore <= 20 us per model, <= 64 MiB\n");
  return 0;
}
