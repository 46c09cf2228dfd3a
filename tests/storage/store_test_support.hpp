// What the storage tests share: one record of every payload type with doubles that are
// hard to round-trip, and a scratch directory removed when the test ends.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "domain/core/reason.hpp"
#include "storage/records.hpp"

namespace capstan::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kDenormMin = std::numeric_limits<double>::denorm_min();
inline const double kPointThree = 0.1 + 0.2;  // 0.30000000000000004

inline const ModelKey kLlama{"prod", "meta-llama/Llama-3.1-8B"};
inline const ModelKey kQwen{"prod", "qwen"};

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "capstan-store-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline ModelTickInput sample_observation() {
  PodMetrics gap;
  gap.pod = "h100-0";
  gap.arrival_rate_rps = gap.avg_ttft_ms = gap.avg_itl_ms = kNaN;
  gap.kv_usage = -0.0;
  gap.running = kDenormMin;
  gap.queue_length = kInf;
  PodMetrics busy;
  busy.pod = "h100-1";
  busy.arrival_rate_rps = kPointThree;
  busy.ready = true;
  busy.request_itl = {{50, 75}, {10, 20}, 20, 1350.25};
  VariantTickInput h100;
  h100.state.spec.name = "h100";
  h100.state.spec.cost_per_replica = kPointThree;
  h100.state.current_replicas = 2;
  h100.state.desired_replicas = 3;
  h100.state.pods = {gap, busy};
  h100.forward_passes = {{12.5, 512, 2048, 1, 7, "h100-1", 1, 0, 0}};
  h100.new_cold_starts_s = {41.5};
  h100.configured_cold_start_s = 60;
  ModelTickInput m;
  m.model = kLlama;
  m.variants = {h100};
  m.decode_queue = kNaN;
  m.arrival_rate_rps = kPointThree;
  m.priority = 2;
  return m;
}

// A decision whose reason has figures of every kind and a cause, as a stage leaves it.
inline Decision sample_decision() {
  const Reason policy = make_reason(ReasonCode::kScaleUp, "load.scale_up",
                                    {{"current", 3}, {"target", 4}, {"demand_rps", kPointThree}, {"predictor", "holt"}});
  const Reason capped = make_reason(ReasonCode::kMaxReplicas, "enforcer.max_replicas",
                                    {{"max_replicas", 4}, {"wanted", 9L}, {"load", kNaN}}, {policy});
  return {kLlama, "h100", 3, 4, capped};
}

// One event of every payload type, in the order of Payload's alternatives and then of
// TickEvent's.
inline std::vector<storage::Event> one_of_each_event() {
  using namespace storage;
  ParamsLearned params;
  params.variant = {kLlama, "h100"};
  params.params = {kPointThree, kDenormMin, 1e-300};
  params.covariance = {kNaN, kInf, -kInf, kPointThree, kDenormMin, -0.0, 1e308, 2.2250738585072009e-308, 7};
  params.nis = 3.75;
  params.accepted = true;
  params.source = "ekf";
  params.accepted_updates = 4'000'000'000L;
  params.rejected_updates = 3;
  ForecastMade forecast{kLlama, "holt", 90, kPointThree, -kInf, {{"constant", kNaN}, {"holt", 0.125}}};
  CapacitySized capacity{kLlama, "h100", {2000, 0}, "explicit", 12.5, kDenormMin, "ttft-tail", kNaN, 7};

  std::vector<Event> events;
  auto add = [&](Payload p) { events.push_back({0, 100.0 + kPointThree * static_cast<double>(events.size()), std::move(p)}); };
  add(TickStarted{18'446'744'073'709'551'000ULL, 1'700'000'000.125, 30});
  add(ObservationRecorded{sample_observation()});
  add(ConfigApplied{{{"tick_s", 30}, {"models", {{{"id", "qwen"}, {"slo", 0.25}}}}},
                    {{"tick_s", "flag"}, {"models", "file"}}});
  add(ConfigRejected{"/etc/capstan/config.yaml", "models[0].min_replicas must be >= 0, got -1"});
  add(ActuationRecorded{{kLlama, "h100"}, "failed", 4, 3, "connection refused", 2});
  add(Incident{kQwen, "model_timeout", "no answer in 5 s; held 2 replicas"});
  add(Incident{std::nullopt, "store_slow", "append took 900 ms"});
  add(TickEvent{params});
  add(TickEvent{ColdStartLearned{{kLlama, "a100"}, {41.5, kPointThree, kInf}, 42.25, 60}});
  add(TickEvent{forecast});
  add(TickEvent{capacity});
  add(TickEvent{StageApplied{kLlama, "h100", Stage::kPdBand, 2, 3, ReasonCode::kPdBand}});
  add(TickEvent{DecisionMade{sample_decision()}});
  add(TickEvent{DecisionMade{{kQwen, "a100", 1, 1, {ReasonCode::kHold, "hold at 1"}}}});
  return events;
}

// A small event of `model` at `time_s`, for tests that need many.
inline storage::Event decision_event(const ModelKey& model, double time_s, int target = 2) {
  return {0, time_s, TickEvent{DecisionMade{{model, "h100", 1, target, {ReasonCode::kScaleUp, "scale up"}}}}};
}

// The events key of a seq, as the store writes it.
inline std::string seq_key(std::uint64_t seq) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i, seq >>= 8) key[static_cast<std::size_t>(i)] = static_cast<char>(seq & 0xFF);
  return key;
}

// Writes straight into a column family of a closed store, as a disk fault, another
// program or another build would: each key's value, in one opening.
inline bool put_raw(const std::string& dir, const std::string& family,
                    const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const char* name : {"default", "events", "snapshots", "metadata"}) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  if (!rocksdb::DB::Open(rocksdb::DBOptions(), dir, families, &handles, &db).ok()) return false;
  const std::size_t index = family == "events" ? 1 : family == "snapshots" ? 2 : 3;
  bool ok = true;
  for (const auto& [key, value] : values) ok = ok && db->Put({}, handles[index], key, value).ok();
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
  delete db;
  return ok;
}

inline bool put_raw(const std::string& dir, const std::string& family, const std::string& key, const std::string& value) {
  return put_raw(dir, family, {{key, value}});
}

}  // namespace capstan::testing
