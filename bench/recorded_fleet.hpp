// Tick inputs with realistic pods for the policy benches (issue 19): what the simulator
// hands a policy, tick by tick (sim/harness.hpp HarnessOptions::on_tick, the same values
// `simulate --record` writes). The example fleet (ops/examples/fleet.yaml: Llama-2-70B on
// A100 and H100 variants, 1-8 replicas each, whose pods report per-request ITL
// histograms) serves a trace under `hybrid`; the benches then replay those inputs to
// every policy. Also: a fleet of many models built from one recorded model, and the
// process's peak RSS.
#pragma once

#include <jemalloc/jemalloc.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "domain/policies/hybrid_policy.hpp"
#include "domain/policies/policy.hpp"
#include "sim/harness.hpp"
#include "sim/trace_open.hpp"

namespace capstan::bench {

inline std::filesystem::path repository_root() {
  return std::filesystem::path(__FILE__).parent_path().parent_path();
}

// The inputs of every tick of a simulated run of `trace_path` (default: the repository's
// 15-minute Azure code excerpt) on the example fleet, SLO TTFT 2000 ms / ITL 100 ms as
// `simulate` defaults. Empty on an error, which is printed.
inline std::vector<TickInput> simulated_ticks(std::string trace_path = "") {
  if (trace_path.empty()) trace_path = (repository_root() / "ops/examples/azure_code_15min.csv").string();
  std::vector<TickInput> out;
  auto fleet = sim::load_fleet_config((repository_root() / "ops/examples/fleet.yaml").string());
  auto trace = sim::open_trace(trace_path, sim::TraceOptions{});
  if (!fleet.ok() || !trace.ok()) {
    std::printf("cannot simulate: %s\n", (!fleet.ok() ? fleet.error() : trace.error()).message.c_str());
    return out;
  }
  PolicyConfig config;
  config.slo = {2000, 100};
  config.client_timeout_s = fleet.value().client_timeout_s;
  DrivenPolicy policy(hybrid_policy(), config);
  sim::HarnessOptions options;
  options.slo = {2000, 100};
  options.on_tick = [&out](const TickInput& input, const std::vector<Decision>&) { out.push_back(input); };
  auto run = sim::run_policy(policy, fleet.value(), std::move(trace).value(), options);
  if (!run.ok()) {
    std::printf("cannot simulate: %s\n", run.error().message.c_str());
    out.clear();
  }
  return out;
}

inline std::size_t variant_count(const TickInput& input) {
  std::size_t n = 0;
  for (const ModelTickInput& m : input.models) n += m.variants.size();
  return n;
}

// `models` models of `variants_per_model` variants each, every one a copy of a variant
// of `recorded`'s first model (taken in turn), renamed so that keys are unique; the
// forward passes copied only for the models `reads_forward_passes` says are read (as a
// daemon's metrics source does, fleet::MetricsSource::observe; empty: every model's).
inline TickInput widened(const TickInput& recorded, int models, int variants_per_model,
                         const ReadsForwardPasses& reads_forward_passes = {}) {
  TickInput out;
  out.now_s = recorded.now_s;
  out.interval_s = recorded.interval_s;
  const ModelTickInput& source = recorded.models.at(0);
  out.models.reserve(static_cast<std::size_t>(models));
  for (int m = 0; m < models; ++m) {
    ModelTickInput model;
    model.model = {source.model.ns, source.model.model_id + "-" + std::to_string(m)};
    model.upstream_queue = source.upstream_queue;
    model.arrival_rate_rps = 0;
    for (int v = 0; v < variants_per_model; ++v) {
      const VariantTickInput& from = source.variants[static_cast<std::size_t>(v) % source.variants.size()];
      // Every field but the forward passes, which follow once the model is known.
      VariantTickInput variant;
      variant.state = from.state;
      variant.new_cold_starts_s = from.new_cold_starts_s;
      variant.configured_cold_start_s = from.configured_cold_start_s;
      variant.state.spec.name += "-" + std::to_string(v);
      model.variants.push_back(std::move(variant));
    }
    // The router saw every copy's share of the recorded model's arrivals.
    model.arrival_rate_rps = source.arrival_rate_rps * variants_per_model / static_cast<double>(source.variants.size());
    if (!reads_forward_passes || reads_forward_passes(model))
      for (int v = 0; v < variants_per_model; ++v)
        model.variants[static_cast<std::size_t>(v)].forward_passes =
            source.variants[static_cast<std::size_t>(v) % source.variants.size()].forward_passes;
    out.models.push_back(std::move(model));
  }
  return out;
}

// A line of /proc/self/status, KiB; -1 when /proc says nothing.
inline long status_kib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

// The process's peak resident set (VmHWM) and its resident set now (VmRSS), KiB.
inline long peak_rss_kib() { return status_kib("VmHWM"); }
inline long rss_kib() { return status_kib("VmRSS"); }

// Starts a new peak at the current resident set (Linux: "5" to clear_refs), so that a
// figure measures what follows and not the simulation that recorded the inputs; memory
// freed before is first handed back to the system.
inline bool reset_peak_rss() {
  static_assert(MALLCTL_ARENAS_ALL == 4096, "every arena's index, spelled in the name below");
  mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace capstan::bench
