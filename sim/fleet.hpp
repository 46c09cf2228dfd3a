// The simulated fleet of one model: per variant, replicas with a lifecycle
// (replica.hpp), and the router in front of them (router.hpp). The fleet applies
// desired replica counts: scale-up creates replicas that become ready after their
// cold start; scale-down drains, preferring replicas that are not ready yet (newest
// first), then the ready ones with the least outstanding work. Gone replicas are
// kept for cost accounting.
//
// A disaggregated fleet (variants with role prefill and decode, fleet_config.hpp)
// routes new requests to its prefill replicas; each request a prefill replica has
// prefilled is routed on to a decode replica, with the KV transfer as a latency term
// (router.hpp, kv_transfer.hpp). A fleet of role-both variants works as it always did.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "sim/fleet_config.hpp"
#include "sim/replica.hpp"
#include "sim/router.hpp"

namespace capstan::sim {

struct VariantState {
  std::string variant;
  int desired = 0;
  int current = 0;   // pending + loading + ready
  int pending = 0;
  int loading = 0;
  int ready = 0;
  int draining = 0;
};

struct ScaleAction {
  double time_s = 0;
  std::string variant;
  int from = 0;
  int to = 0;
};

class Fleet {
 public:
  Fleet(FleetConfig config, std::uint64_t seed, double start_s = 0);

  // Applies a desired count, clamped to the variant's [min, max]; returns the count
  // applied. An unknown variant is an error.
  Result<int> set_desired(const std::string& variant, int replicas, double now_s);

  void route(Request request, double now_s);
  void abandon_timed_out(double now_s);

  double next_event_s() const;
  // Processes the earliest replica event (iteration end or lifecycle step).
  void process_next_event();

  bool idle() const;
  // Upstream queue + decode queue + waiting + running + KV transfers in flight: each
  // request once, wherever it is.
  int requests_in_system() const;
  std::vector<VariantState> states() const;
  std::vector<ScaleAction> scale_actions() const { return actions_; }

  const FleetConfig& config() const { return config_; }
  const std::vector<std::unique_ptr<Replica>>& replicas() const { return replicas_; }
  const Router& router() const { return router_; }

  double replica_seconds(double now_s) const;
  double gpu_seconds(double now_s) const;
  double cost(double now_s) const;  // in the config's cost units (per replica-hour)

  std::vector<RequestOutcome> take_outcomes();

 private:
  // Ready replicas that take new requests (role both or prefill), or hand-offs (decode).
  std::vector<Replica*> ready_replicas() const;
  std::vector<Replica*> ready_decode_replicas() const;
  void add_replica(int variant_index, double now_s, bool warm);

  FleetConfig config_;
  std::uint64_t seed_;
  Router router_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<int> desired_;
  std::vector<int> created_per_variant_;
  std::vector<ScaleAction> actions_;
  std::uint64_t replicas_created_ = 0;
};

}  // namespace capstan::sim
