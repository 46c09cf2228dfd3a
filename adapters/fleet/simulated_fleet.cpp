#include "adapters/fleet/simulated_fleet.hpp"

namespace capstan::fleet {

Result<std::unique_ptr<SimulatedFleet>> SimulatedFleet::create(std::vector<sim::ModelInput> models,
                                                               const SimulatedFleetOptions& options) {
  auto created = sim::SimulatedModels::create(std::move(models), options.seed, options.slo);
  if (!created.ok()) return created.error();
  return std::unique_ptr<SimulatedFleet>(new SimulatedFleet(std::move(created).value(), options));
}

Result<Observed> SimulatedFleet::observe(const TickTime& time, const ReadsForwardPasses& reads_forward_passes) {
  std::lock_guard lock(mutex_);
  auto advanced = models_.advance_to(time.now_s);
  if (!advanced.ok()) return advanced.error();
  Observed out;
  out.more = advanced.value();
  out.input = models_.tick_input(models_.observe(), time.now_s, time.interval_s, options_.model_namespace,
                                 reads_forward_passes);
  // The harness decides this tick and then stops once the drain limit has passed.
  if (models_.trace_exhausted()) {
    if (exhausted_at_s_ < 0) exhausted_at_s_ = time.now_s;
    out.last = time.now_s - exhausted_at_s_ >= options_.drain_limit_s;
  }
  if (options_.endless) {
    out.more = true;
    out.last = false;
  }
  return out;
}

Result<int> SimulatedFleet::scale(const VariantKey& variant, int replicas) {
  std::lock_guard lock(mutex_);
  const std::size_t m = models_.find(variant.model.model_id);
  if (variant.model.ns == options_.model_namespace && m < models_.size()) {
    for (const auto& v : models_.fleets()[m].variants)
      if (v.name == variant.variant) return models_.set_desired(m, variant.variant, replicas);
  }
  return invalid_argument("the simulated fleet has no variant '" + variant.model.ns + "/" + variant.model.model_id +
                          "/" + variant.variant + "'");
}

std::vector<sim::RunReport> SimulatedFleet::reports() const {
  std::lock_guard lock(mutex_);
  return models_.reports();
}

}  // namespace capstan::fleet
