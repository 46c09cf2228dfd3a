// Replica set management and routing for one model; see fleet.hpp.
#include "sim/fleet.hpp"

#include <algorithm>

namespace capstan::sim {

Fleet::Fleet(FleetConfig config, std::uint64_t seed, double start_s)
    : config_(std::move(config)), seed_(seed), router_(config_.client_timeout_s, config_.kv_transfer) {
  desired_.assign(config_.variants.size(), 0);
  created_per_variant_.assign(config_.variants.size(), 0);
  for (std::size_t v = 0; v < config_.variants.size(); ++v) {
    desired_[v] = config_.variants[v].initial_replicas;
    for (int i = 0; i < config_.variants[v].initial_replicas; ++i)
      add_replica(static_cast<int>(v), start_s, true);
  }
}

void Fleet::add_replica(int variant_index, double now_s, bool warm) {
  const auto& v = config_.variants[static_cast<std::size_t>(variant_index)];
  ServerConfig server = v.server;
  server.role = v.role;
  const std::string name =
      v.name + "-" + std::to_string(created_per_variant_[static_cast<std::size_t>(variant_index)]++);
  const std::uint64_t seed = derive_seed(seed_, ++replicas_created_);
  if (warm) {
    replicas_.push_back(std::make_unique<Replica>(
        Replica::warm(name, variant_index, server, v.profile, seed, now_s)));
  } else {
    replicas_.push_back(std::make_unique<Replica>(name, variant_index, server, v.profile, seed,
                                                  now_s, v.pending_s, v.cold_start_s));
  }
}

Result<int> Fleet::set_desired(const std::string& variant, int replicas, double now_s) {
  int index = -1;
  for (std::size_t v = 0; v < config_.variants.size(); ++v)
    if (config_.variants[v].name == variant) index = static_cast<int>(v);
  if (index < 0) return invalid_argument("unknown variant '" + variant + "'");
  const auto& cfg = config_.variants[static_cast<std::size_t>(index)];
  const int target = std::clamp(replicas, cfg.min_replicas, cfg.max_replicas);
  desired_[static_cast<std::size_t>(index)] = target;
  std::vector<Replica*> current;
  for (auto& r : replicas_)
    if (r->variant_index() == index && r->counts_as_current()) current.push_back(r.get());
  const int have = static_cast<int>(current.size());
  if (target == have) return target;
  actions_.push_back({now_s, variant, have, target});
  if (target > have) {
    for (int i = have; i < target; ++i) add_replica(index, now_s, false);
    return target;
  }
  // Not ready first (newest first), then ready by least outstanding work (newest first on ties).
  std::stable_sort(current.begin(), current.end(), [](const Replica* a, const Replica* b) {
    if (a->ready() != b->ready()) return !a->ready();
    if (!a->ready()) return a->created_s() > b->created_s();
    return a->server().outstanding_tokens() < b->server().outstanding_tokens();
  });
  for (int i = 0; i < have - target; ++i) current[static_cast<std::size_t>(i)]->drain(now_s);
  return target;
}

std::vector<Replica*> Fleet::ready_replicas() const {
  std::vector<Replica*> out;
  for (const auto& r : replicas_)
    if (r->ready() && r->role() != Role::kDecode) out.push_back(r.get());
  return out;
}

std::vector<Replica*> Fleet::ready_decode_replicas() const {
  std::vector<Replica*> out;
  for (const auto& r : replicas_)
    if (r->ready() && r->role() == Role::kDecode) out.push_back(r.get());
  return out;
}

void Fleet::route(Request request, double now_s) {
  router_.route(std::move(request), ready_replicas(), now_s);
}

void Fleet::abandon_timed_out(double now_s) {
  router_.abandon_timed_out(now_s);
  for (auto& r : replicas_)
    if (r->alive()) r->server().abandon_timed_out(now_s);
}

double Fleet::next_event_s() const {
  double t = ModelServer::kNever;
  for (const auto& r : replicas_)
    if (r->alive()) t = std::min(t, r->next_event_s());
  return t;
}

void Fleet::process_next_event() {
  Replica* next = nullptr;
  double t = ModelServer::kNever;
  for (auto& r : replicas_) {
    if (!r->alive()) continue;
    const double rt = r->next_event_s();
    if (rt < t) {
      t = rt;
      next = r.get();
    }
  }
  if (next == nullptr) return;
  const bool was_ready = next->ready();
  next->process_event();
  if (next->role() == Role::kPrefill) {
    auto handoffs = next->server().take_handoffs();
    if (!handoffs.empty()) {
      const auto decode = ready_decode_replicas();
      for (auto& h : handoffs) router_.route_handoff(std::move(h), *next, decode, t);
    }
  }
  if (!was_ready && next->ready()) {
    if (next->role() == Role::kDecode) {
      router_.flush_handoffs(ready_decode_replicas(), t);
    } else {
      router_.flush(ready_replicas(), t);
    }
  }
}

bool Fleet::idle() const {
  if (router_.queue_size() > 0 || router_.decode_queue_size() > 0) return false;
  for (const auto& r : replicas_)
    if (r->alive() && !r->server().idle()) return false;
  return true;
}

int Fleet::requests_in_system() const {
  int n = static_cast<int>(router_.queue_size() + router_.decode_queue_size());
  for (const auto& r : replicas_)
    if (r->alive())
      n += r->server().num_running() + r->server().num_waiting() + r->server().num_handoffs_incoming();
  return n;
}

std::vector<VariantState> Fleet::states() const {
  std::vector<VariantState> out;
  for (std::size_t v = 0; v < config_.variants.size(); ++v) {
    VariantState s;
    s.variant = config_.variants[v].name;
    s.desired = desired_[v];
    for (const auto& r : replicas_) {
      if (r->variant_index() != static_cast<int>(v)) continue;
      switch (r->state()) {
        case ReplicaState::kPending: ++s.pending; break;
        case ReplicaState::kLoading: ++s.loading; break;
        case ReplicaState::kReady: ++s.ready; break;
        case ReplicaState::kDraining: ++s.draining; break;
        case ReplicaState::kGone: break;
      }
    }
    s.current = s.pending + s.loading + s.ready;
    out.push_back(s);
  }
  return out;
}

double Fleet::replica_seconds(double now_s) const {
  double total = 0;
  for (const auto& r : replicas_) total += r->lifetime_s(now_s);
  return total;
}

double Fleet::gpu_seconds(double now_s) const {
  double total = 0;
  for (const auto& r : replicas_)
    total += r->lifetime_s(now_s) *
             config_.variants[static_cast<std::size_t>(r->variant_index())].gpus_per_replica;
  return total;
}

double Fleet::cost(double now_s) const {
  double total = 0;
  for (const auto& r : replicas_)
    total += r->lifetime_s(now_s) / 3600.0 *
             config_.variants[static_cast<std::size_t>(r->variant_index())].cost_per_replica_hour;
  return total;
}

std::vector<RequestOutcome> Fleet::take_outcomes() {
  auto out = router_.take_outcomes();
  for (auto& r : replicas_) {
    auto more = r->server().take_outcomes();
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace capstan::sim
