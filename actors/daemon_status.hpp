// What the running daemon knows, for its admin API (adapters/admin/): a snapshot the
// driver loop of run_daemon updates after each tick (from the tick's summary, which
// carries the events the tick appended: FleetOptions::summary_events), and
// the admin server's thread reads under a mutex, so the server never asks an actor and
// a request never waits for a tick. Stored events are read through a read-only
// (secondary) opener of the store, caught up once a tick, never through the writer's
// handle; a page read again before the next tick comes from the text made for it.
// The advisory approval queue is the actuator's state (actuator_approvals.hpp): its list
// and its reviews are CAF requests from the server's thread with a timeout, the one
// place the admin API asks an actor; the actuator answers between two connector calls.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "actors/messages.hpp"
#include "adapters/admin/state_provider.hpp"
#include "storage/event_store.hpp"
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
  std::string models(const admin::ModelPage& page) const override;
  std::optional<nlohmann::json> model(const ModelKey& key) const override;
  Result<std::string> events(const admin::EventQuery& query) const override;
  nlohmann::json config() const override;
  admin::Reply pending_decisions(const std::optional<ModelKey>& model) const override;
  admin::Reply review_decision(std::uint64_t id, const admin::Verdict& verdict) const override;

  // The actuator that owns the approval queue, asked with `timeout` from the admin
  // server's thread; until attached, and once detached, those two answer 503.
  void attach_actuator(caf::actor_system& system, actuator_actor actuator,
                       caf::duration timeout = caf::duration{std::chrono::seconds(5)});
  void detach_actuator();

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

  // The attached actuator's reply, or nullopt with why not in `why` (none attached, timeout).
  template <class Reply, class... Ts>
  std::optional<Reply> ask_actuator(std::string& why, Ts&&... xs) const;

  const std::string data_dir_;
  // The events pages' reader: a read-only (secondary) store opened at the first page and
  // refreshed for each later one. Opening one per request took 35-70 ms a page.
  mutable std::mutex reader_mutex_;
  mutable std::unique_ptr<storage::EventStore> reader_;
  // Pages already read, by query, while nothing has been appended since (a dashboard
  // polls the same page: the store is read once a tick for it, not once a request).
  // Under reader_mutex_; emptied when a tick appends, and when full.
  mutable std::uint64_t pages_seq_ = 0;
  mutable std::map<std::string, std::string> pages_;
  mutable std::mutex actuator_mutex_;  // held across a request, so detach waits for it
  caf::actor_system* system_ = nullptr;
  actuator_actor actuator_;
  caf::duration actuator_timeout_;
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
  // /api/v1/models of the last tick, made once by record_tick and shared with every
  // request: each model's summary, and the whole list.
  struct ModelsText {
    std::vector<ModelKey> keys;
    std::vector<std::string> summaries;
    std::string all;
  };
  std::shared_ptr<const ModelsText> models_text_;
  // The /metrics text of the last tick, made on the first request after it.
  mutable std::uint64_t metrics_tick_ = 0;
  mutable std::string metrics_text_;
};

}  // namespace capstan::actors
