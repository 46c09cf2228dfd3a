// Mutex-guarded real-time view of a Simulation; see live_fleet.hpp.
#include "adapters/sim_serve/live_fleet.hpp"

#include <algorithm>

#include "sim/prometheus_text.hpp"

namespace capstan::sim_serve {

LiveFleet::LiveFleet(sim::FleetConfig config, std::unique_ptr<sim::TraceSource> trace, std::uint64_t seed)
    : sim_(config, std::move(trace), seed), model_(config.model) {}

bool LiveFleet::advance_to(double virtual_s) {
  std::lock_guard lock(mutex_);
  return sim_.advance_to(std::max(virtual_s, sim_.now_s()));
}

double LiveFleet::now_s() const {
  std::lock_guard lock(mutex_);
  return sim_.now_s();
}

std::vector<LivePod> LiveFleet::pods() const {
  std::lock_guard lock(mutex_);
  std::vector<LivePod> out;
  const auto& fleet = sim_.fleet();
  for (const auto& r : fleet.replicas()) {
    if (!r->alive()) continue;
    out.push_back({r->name(), fleet.config().variants[static_cast<std::size_t>(r->variant_index())].name,
                   sim::to_string(r->state())});
  }
  return out;
}

std::optional<std::string> LiveFleet::pod_metrics(const std::string& pod) const {
  std::lock_guard lock(mutex_);
  for (const auto& r : sim_.fleet().replicas())
    if (r->alive() && r->name() == pod) return sim::render_replica_metrics(*r, model_);
  return std::nullopt;
}

std::string LiveFleet::router_metrics() const {
  std::lock_guard lock(mutex_);
  return sim::render_router_metrics(sim_.fleet().router(), model_);
}

std::optional<VariantScale> LiveFleet::scale_locked(const std::string& variant) const {
  for (const auto& s : sim_.fleet().states())
    if (s.variant == variant) return VariantScale{s.variant, s.desired, s.pending + s.loading + s.ready};
  return std::nullopt;
}

std::optional<VariantScale> LiveFleet::scale(const std::string& variant) const {
  std::lock_guard lock(mutex_);
  return scale_locked(variant);
}

Result<VariantScale> LiveFleet::set_desired(const std::string& variant, int replicas) {
  std::lock_guard lock(mutex_);
  auto applied = sim_.set_desired(variant, replicas);
  if (!applied.ok()) return applied.error();
  return *scale_locked(variant);
}

std::optional<Error> LiveFleet::error() const {
  std::lock_guard lock(mutex_);
  return sim_.error();
}

sim::RunReport LiveFleet::report() const {
  std::lock_guard lock(mutex_);
  return sim_.report();
}

}  // namespace capstan::sim_serve
