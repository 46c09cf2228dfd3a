// One replica (pod) of a variant and its lifecycle:
//   pending --(pending_s)--> loading --(cold_start_s)--> ready --drain--> draining --> gone.
// A replica that is drained before it is ready goes away at once; a draining replica
// takes no new requests but finishes every request it already holds (prefill role: until
// the KV of its hand-offs is transferred; decode role: including transfers under way
// to it), then is gone.
// Cost accrues from creation until gone, loading included.
#pragma once

#include <string>

#include "sim/model_server.hpp"

namespace capstan::sim {

enum class ReplicaState { kPending, kLoading, kReady, kDraining, kGone };

const char* to_string(ReplicaState state);

class Replica {
 public:
  Replica(std::string name, int variant_index, ServerConfig server, HardwareProfile profile,
          std::uint64_t seed, double created_s, double pending_s, double cold_start_s);

  // A replica that is ready at created_s (the fleet's initial replicas).
  static Replica warm(std::string name, int variant_index, ServerConfig server,
                      HardwareProfile profile, std::uint64_t seed, double created_s);

  const std::string& name() const { return name_; }
  int variant_index() const { return variant_index_; }
  Role role() const { return server_.config().role; }
  ReplicaState state() const { return state_; }
  bool ready() const { return state_ == ReplicaState::kReady; }
  bool alive() const { return state_ != ReplicaState::kGone; }
  bool counts_as_current() const {
    return state_ == ReplicaState::kPending || state_ == ReplicaState::kLoading ||
           state_ == ReplicaState::kReady;
  }
  double created_s() const { return created_s_; }
  double ready_s() const { return ready_s_; }   // when it became (or will become) ready
  double gone_s() const { return gone_s_; }

  // Next lifecycle transition or server event (iteration end, KV hand-off), +infinity if none.
  double next_event_s() const;
  // Processes everything due at exactly next_event_s().
  void process_event();

  void drain(double now_s);
  // Replica-seconds of cost accrued up to now_s.
  double lifetime_s(double now_s) const;

  ModelServer& server() { return server_; }
  const ModelServer& server() const { return server_; }

 private:
  double next_lifecycle_s() const;
  void maybe_gone(double now_s);

  std::string name_;
  int variant_index_;
  ModelServer server_;
  ReplicaState state_ = ReplicaState::kPending;
  double created_s_;
  double loading_s_;
  double ready_s_;
  double gone_s_ = ModelServer::kNever;
};

}  // namespace capstan::sim
