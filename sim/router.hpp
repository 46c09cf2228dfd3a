// The request router in front of a model's replicas, after the llm-d endpoint
// picker: each request goes to the ready replica with the least outstanding work
// (tokens still to compute or generate; ties to the lower index). When no replica is
// ready, requests wait in an upstream FIFO (the EPP flow-control queue), which is
// flushed as soon as a replica becomes ready; this is how scale-from-zero works.
// Requests that wait there past the client timeout are abandoned as failures.
//
// Disaggregated fleets: new requests go to the prefill replicas as above. A request
// whose prompt a prefill replica has computed (a hand-off) goes to the ready decode
// replica with the least outstanding work, and its KV transfer starts at once
// (kv_transfer.hpp); when no decode replica is ready it waits in a second FIFO, the
// decode queue, flushed when one becomes ready. Its first token is already out, so the
// client timeout does not apply there; its KV stays held on the prefill replica.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "sim/kv_transfer.hpp"
#include "sim/model_server.hpp"
#include "sim/replica.hpp"
#include "sim/request.hpp"

namespace capstan::sim {

// Bytes a queued request is accounted for: its prompt at about 4 bytes per token,
// the order of magnitude of the JSON body the EPP holds.
inline constexpr long long kQueuedBytesPerToken = 4;

class Router {
 public:
  explicit Router(double client_timeout_s, KvTransferConfig kv_transfer = {})
      : client_timeout_s_(client_timeout_s), kv_transfer_(kv_transfer) {}

  // Routes to one of `ready` (all of them ready replicas) or queues upstream.
  void route(Request request, const std::vector<Replica*>& ready, double now_s);
  // Sends queued requests, oldest first, while a ready replica exists.
  void flush(const std::vector<Replica*>& ready, double now_s);
  void abandon_timed_out(double now_s);

  // A hand-off from `source` (a prefill replica): to one of `ready_decode`, or queued.
  void route_handoff(Handoff handoff, Replica& source, const std::vector<Replica*>& ready_decode,
                     double now_s);
  // Sends queued hand-offs, oldest first, while a ready decode replica exists.
  void flush_handoffs(const std::vector<Replica*>& ready_decode, double now_s);
  std::size_t decode_queue_size() const { return decode_queue_.size(); }

  std::size_t queue_size() const { return queue_.size(); }
  long long queue_bytes() const { return queue_bytes_; }
  // inference_extension_scheduler_attempts_total{status="success"} per pod.
  const std::map<std::string, std::uint64_t>& attempts_success() const { return attempts_; }
  std::uint64_t attempts_success(const std::string& pod) const;

  std::vector<RequestOutcome> take_outcomes();

 private:
  struct QueuedHandoff {
    Handoff handoff;
    Replica* source;
  };
  // The ready replica with the least outstanding work (lower index on ties); counts the attempt.
  Replica* pick(const std::vector<Replica*>& ready);
  void send(Request request, const std::vector<Replica*>& ready, double now_s);
  void send_handoff(QueuedHandoff queued, const std::vector<Replica*>& ready_decode, double now_s);
  double client_timeout_s_;
  KvTransferConfig kv_transfer_;
  std::deque<Request> queue_;
  std::deque<QueuedHandoff> decode_queue_;
  long long queue_bytes_ = 0;
  std::map<std::string, std::uint64_t> attempts_;
  std::vector<RequestOutcome> outcomes_;
};

}  // namespace capstan::sim
