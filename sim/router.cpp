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

void Router::send(Request request, const std::vector<Replica*>& ready, double now_s) {
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
  best->server().enqueue(std::move(request), now_s);
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
