// Replica lifecycle; see replica.hpp.
#include "sim/replica.hpp"

#include <algorithm>

namespace capstan::sim {

const char* to_string(ReplicaState state) {
  switch (state) {
    case ReplicaState::kPending: return "pending";
    case ReplicaState::kLoading: return "loading";
    case ReplicaState::kReady: return "ready";
    case ReplicaState::kDraining: return "draining";
    case ReplicaState::kGone: return "gone";
  }
  return "unknown";
}

Replica::Replica(std::string name, int variant_index, ServerConfig server, HardwareProfile profile,
                 std::uint64_t seed, double created_s, double pending_s, double cold_start_s)
    : name_(std::move(name)),
      variant_index_(variant_index),
      server_(server, std::move(profile), seed),
      created_s_(created_s),
      loading_s_(created_s + pending_s),
      ready_s_(created_s + pending_s + cold_start_s) {}

Replica Replica::warm(std::string name, int variant_index, ServerConfig server,
                      HardwareProfile profile, std::uint64_t seed, double created_s) {
  Replica r(std::move(name), variant_index, server, std::move(profile), seed, created_s, 0, 0);
  r.state_ = ReplicaState::kReady;
  return r;
}

double Replica::next_lifecycle_s() const {
  switch (state_) {
    case ReplicaState::kPending: return loading_s_;
    case ReplicaState::kLoading: return ready_s_;
    default: return ModelServer::kNever;
  }
}

double Replica::next_event_s() const {
  return std::min(next_lifecycle_s(), server_.next_event_s());
}

void Replica::process_event() {
  const double t_life = next_lifecycle_s();
  const double t_server = server_.next_event_s();
  if (t_life <= t_server) {
    if (state_ == ReplicaState::kPending) {
      // Equal times (pending_s = 0 or cold_start_s = 0) resolve over successive calls.
      state_ = ReplicaState::kLoading;
    } else if (state_ == ReplicaState::kLoading) {
      state_ = ReplicaState::kReady;
    }
    return;
  }
  server_.process_next_event();
  if (state_ == ReplicaState::kDraining) maybe_gone(t_server);
}

void Replica::drain(double now_s) {
  if (state_ == ReplicaState::kPending || state_ == ReplicaState::kLoading) {
    state_ = ReplicaState::kGone;
    gone_s_ = now_s;
    return;
  }
  if (state_ != ReplicaState::kReady) return;
  state_ = ReplicaState::kDraining;
  maybe_gone(now_s);
}

void Replica::maybe_gone(double now_s) {
  if (state_ == ReplicaState::kDraining && server_.idle()) {
    state_ = ReplicaState::kGone;
    gone_s_ = now_s;
  }
}

double Replica::lifetime_s(double now_s) const {
  return std::max(0.0, std::min(now_s, gone_s_) - created_s_);
}

}  // namespace capstan::sim
