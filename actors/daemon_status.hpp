// What the running daemon knows, for its admin API (adapters/admin/): a snapshot the
// driver loop of run_daemon updates after each tick (from the tick's summary, which
// carries the events the tick appended: FleetOptions::summary_events), and
// the admin server's thread reads under a mutex, so the server never asks an actor and
// a request never waits for a tick. Stored events are read through a read-only
// (secondary) opener of the store per request, never through the writer's handle.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "actors/messages.hpp"
#include "adapters/admin/state_provider.hpp"
#include "storage/records.hpp"

namespace capstan::actors {

class DaemonStatus final : public admin::StateProvider {
 public:
  // `config`: config::to_json of the configuration the daemon starts with.
  DaemonStatus(std::string data_dir, nlohmann::json config);

  void store_opened(std::uint64_t last_seq);
  // After each tick that ran: its summary and the events it appended, in sequence order.
  // Of those it reads config_applied, actuation, params_learned, capacity and forecast.
  void record_tick(const TickSummary& summary, const std::vector<storage::Event>& events);

  admin::Readiness readiness() const override;
  std::string metrics() const override;
  std::string models() const override;
  std::optional<nlohmann::json> model(const ModelKey& key) const override;
  Result<nlohmann::json> events(const admin::EventQuery& query) const override;
  nlohmann::json config() const override;

  // The tick duration histogram's upper bounds, seconds.
  static const std::vector<double>& tick_buckets_s();

 private:
  struct VariantView {
    std::optional<Decision> decision;
    std::optional<ParamsLearned> params;
    std::optional<CapacitySized> capacity;
    std::uint64_t actuation_failures = 0;
  };
  struct ModelView {
    std::uint64_t tick = 0;
    double now_s = 0;
    std::optional<ForecastMade> forecast;
    std::map<std::string, VariantView> variants;
  };

  nlohmann::json model_json(const ModelKey& key, const ModelView& view, bool detail) const;

  const std::string data_dir_;
  mutable std::mutex mutex_;
  nlohmann::json config_;
  bool store_open_ = false;
  std::uint64_t start_seq_ = 0, last_seq_ = 0;
  std::uint64_t ticks_ = 0, last_tick_ = 0;
  double last_now_s_ = 0;
  std::vector<std::uint64_t> tick_buckets_;  // per bound, not cumulative
  double tick_seconds_sum_ = 0;
  std::array<double, 4> last_phases_ms_{};  // the last tick's observed, planned, durable, done
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::uint64_t> decisions_total_;
  std::map<ModelKey, ModelView> models_;
  // The /metrics and /api/v1/models texts of the last tick, made on the first request after it.
  mutable std::uint64_t metrics_tick_ = 0, models_tick_ = 0;
  mutable std::string metrics_text_, models_text_;
};

}  // namespace capstan::actors
