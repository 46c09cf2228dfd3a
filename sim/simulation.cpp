// Virtual-time driver of a trace-fed fleet; see simulation.hpp.
#include "sim/simulation.hpp"

#include <algorithm>
#include <cmath>

#include "domain/core/format.hpp"

namespace capstan::sim {

Simulation::Simulation(FleetConfig config, std::unique_ptr<TraceSource> trace, std::uint64_t seed,
                       SloTargets slo)
    : fleet_(std::move(config), seed, 0), trace_(std::move(trace)), stats_(slo) {}

bool Simulation::pull_next() {
  if (next_request_ || trace_done_) return true;
  auto r = trace_->next();
  if (!r.ok()) {
    error_ = r.error();
    trace_done_ = true;
    return false;
  }
  if (!r.value()) {
    trace_done_ = true;
    return true;
  }
  // Every reader refuses these; a source that lets one through must not loop for ever.
  if (!std::isfinite(r.value()->arrival_s)) {
    error_ = invalid_argument("a request arrives at " + fmt_num(r.value()->arrival_s) + " s: arrivals must be finite");
    trace_done_ = true;
    return false;
  }
  next_request_ = std::move(*r.value());
  return true;
}

bool Simulation::advance_to(double t_s) {
  if (error_) return false;
  for (;;) {
    if (!pull_next()) return false;
    const double t_arrival = next_request_ ? std::max(next_request_->arrival_s, now_s_) : ModelServer::kNever;
    const double t_fleet = fleet_.next_event_s();
    if (std::min(t_arrival, t_fleet) > t_s) break;
    if (t_arrival <= t_fleet) {
      now_s_ = t_arrival;
      Request r = std::move(*next_request_);
      next_request_.reset();
      r.id = static_cast<std::uint64_t>(++arrived_);
      fleet_.route(std::move(r), now_s_);
    } else {
      now_s_ = t_fleet;
      fleet_.process_next_event();
    }
  }
  now_s_ = std::max(now_s_, t_s);
  fleet_.abandon_timed_out(now_s_);
  recent_outcomes_ = fleet_.take_outcomes();
  std::stable_sort(recent_outcomes_.begin(), recent_outcomes_.end(),
                   [](const RequestOutcome& a, const RequestOutcome& b) { return a.end_s < b.end_s; });
  for (const auto& o : recent_outcomes_) stats_.add(o);
  return !finished();
}

Observation Simulation::observe() {
  Observation obs;
  obs.now_s = now_s_;
  obs.upstream_queue_size = fleet_.router().queue_size();
  obs.upstream_queue_bytes = fleet_.router().queue_bytes();
  obs.decode_queue_size = fleet_.router().decode_queue_size();
  obs.requests_in_system = fleet_.requests_in_system();
  obs.window_s = now_s_ - last_observe_s_;
  obs.arrivals = arrived_ - arrived_at_last_observe_;
  last_observe_s_ = now_s_;
  arrived_at_last_observe_ = arrived_;
  for (const auto& state : fleet_.states()) obs.variants.push_back({state, {}, {}, {}});
  const auto& replicas = fleet_.replicas();
  cold_start_reported_.resize(replicas.size(), false);
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    auto& replica = replicas[i];
    auto& variant = obs.variants[static_cast<std::size_t>(replica->variant_index())];
    // Initial replicas start warm (ready at creation): they measured no cold start.
    if (!cold_start_reported_[i] && replica->ready_s() <= now_s_ &&
        replica->state() != ReplicaState::kPending && replica->state() != ReplicaState::kLoading) {
      cold_start_reported_[i] = true;
      if (replica->ready_s() > replica->created_s() && replica->gone_s() >= replica->ready_s())
        variant.new_cold_starts_s.push_back(replica->ready_s() - replica->created_s());
    }
    if (!replica->alive()) continue;
    auto passes = replica->server().take_recent_forward_passes();
    variant.forward_passes.insert(variant.forward_passes.end(), passes.begin(), passes.end());
    auto now = sample_counters(*replica, fleet_.router(), now_s_);
    auto [it, inserted] = last_samples_.try_emplace(replica->name());
    if (inserted) it->second.time_s = replica->created_s();
    variant.pods.push_back(pod_metrics(*replica, it->second, now));
    it->second = now;
  }
  return obs;
}

Result<int> Simulation::set_desired(const std::string& variant, int replicas) {
  return fleet_.set_desired(variant, replicas, now_s_);
}

RunReport Simulation::report() const { return make_run_report(stats_, arrived_, fleet_, now_s_); }

}  // namespace capstan::sim
