// Least-outstanding-work routing with an upstream queue; see router.hpp.
#include "sim/router.hpp"

namespace capstan::sim {

void Router::route(Request request, const std::vector<Replica*>& ready, double now_s) {
  if (ready.empty() || !queue_.empty()) {
    queue_bytes_ += request.input_tokens * kQueuedBytesPerToken;
    queue_.push_back(std::move(request));
    flush(ready, now_s);
    return;
  }
  send(std::move(request), ready, now_s);
}

Replica* Router::pick(const std::vector<Replica*>& ready) {
  Replica* best = ready.front();
  long long best_load = best->server().outstanding_tokens();
  for (std::size_t i = 1; i < ready.size(); ++i) {
    const long long load = ready[i]->server().outstanding_tokens();
    if (load < best_load) {
      best = ready[i];
      best_load = load;
    }
  }
  ++attempts_[best->name()];
  return best;
}

void Router::send(Request request, const std::vector<Replica*>& ready, double now_s) {
  pick(ready)->server().enqueue(std::move(request), now_s);
}

void Router::route_handoff(Handoff handoff, Replica& source, const std::vector<Replica*>& ready_decode,
                           double now_s) {
  QueuedHandoff queued{std::move(handoff), &source};
  if (ready_decode.empty() || !decode_queue_.empty()) {
    decode_queue_.push_back(std::move(queued));
    flush_handoffs(ready_decode, now_s);
    return;
  }
  send_handoff(std::move(queued), ready_decode, now_s);
}

void Router::send_handoff(QueuedHandoff queued, const std::vector<Replica*>& ready_decode, double now_s) {
  Replica* decode = pick(ready_decode);
  const std::uint64_t key = queued.handoff.key;
  const double done_s = now_s + kv_transfer_s(kv_transfer_, queued.handoff.request.input_tokens);
  // A request the decode replica can never hold fails there, and nothing is transferred.
  const bool accepted = decode->server().accept_handoff(std::move(queued.handoff), now_s, done_s);
  queued.source->server().release_handoff_at(key, accepted ? done_s : now_s);
}

void Router::flush_handoffs(const std::vector<Replica*>& ready_decode, double now_s) {
  if (ready_decode.empty()) return;
  while (!decode_queue_.empty()) {
    QueuedHandoff queued = std::move(decode_queue_.front());
    decode_queue_.pop_front();
    send_handoff(std::move(queued), ready_decode, now_s);
  }
}

void Router::flush(const std::vector<Replica*>& ready, double now_s) {
  if (ready.empty()) return;
  while (!queue_.empty()) {
    Request r = std::move(queue_.front());
    queue_.pop_front();
    queue_bytes_ -= r.input_tokens * kQueuedBytesPerToken;
    send(std::move(r), ready, now_s);
  }
}

void Router::abandon_timed_out(double now_s) {
  if (client_timeout_s_ <= 0) return;
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (now_s - it->arrival_s > client_timeout_s_) {
      RequestOutcome o;
      o.id = it->id;
      o.arrival_s = it->arrival_s;
      o.end_s = now_s;
      o.input_tokens = it->input_tokens;
      o.output_tokens = it->output_tokens;
      o.failed = true;
      outcomes_.push_back(o);
      queue_bytes_ -= it->input_tokens * kQueuedBytesPerToken;
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
}

std::uint64_t Router::attempts_success(const std::string& pod) const {
  const auto it = attempts_.find(pod);
  return it == attempts_.end() ? 0 : it->second;
}

std::vector<RequestOutcome> Router::take_outcomes() {
  std::vector<RequestOutcome> out;
  out.swap(outcomes_);
  return out;
}

}  // namespace capstan::sim
