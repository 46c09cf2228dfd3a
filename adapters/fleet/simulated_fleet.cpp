#include "adapters/fleet/simulated_fleet.hpp"

#include <algorithm>
#include <set>

namespace capstan::fleet {

Result<std::unique_ptr<SimulatedFleet>> SimulatedFleet::create(std::vector<sim::ModelInput> models,
                                                               const SimulatedFleetOptions& options) {
  if (models.empty()) return invalid_argument("the simulated fleet needs at least one model");
  std::set<std::string> names;
  std::unique_ptr<SimulatedFleet> fleet(new SimulatedFleet());
  fleet->options_ = options;
  for (std::size_t m = 0; m < models.size(); ++m) {
    sim::ModelInput& model = models[m];
    if (!names.insert(model.fleet.model).second)
      return invalid_argument("two fleets serve model '" + model.fleet.model + "'");
    if (model.priority < 1)
      return invalid_argument("model '" + model.fleet.model + "': priority must be >= 1, got " +
                              std::to_string(model.priority));
    if (!model.trace) return invalid_argument("model '" + model.fleet.model + "': no trace");
    fleet->sims_.push_back(std::make_unique<sim::Simulation>(model.fleet, std::move(model.trace),
                                                             sim::model_seed(options.seed, m), options.slo));
    fleet->desired_.emplace_back(model.fleet.variants.size());
    fleet->priorities_.push_back(model.priority);
    fleet->fleets_.push_back(std::move(model.fleet));
  }
  return fleet;
}

Result<Observed> SimulatedFleet::observe(const TickTime& time) {
  std::lock_guard lock(mutex_);
  Observed out;
  out.more = false;
  for (auto& sim : sims_) {
    if (sim->advance_to(time.now_s)) out.more = true;
    if (sim->error()) return *sim->error();
  }
  out.input.now_s = time.now_s;
  out.input.interval_s = time.interval_s;
  for (std::size_t m = 0; m < sims_.size(); ++m) {
    TickInput one = sim::to_tick_input(sims_[m]->observe(), fleets_[m], desired_[m], time.interval_s,
                                       options_.model_namespace);
    one.models[0].priority = priorities_[m];
    out.input.models.push_back(std::move(one.models[0]));
  }
  // The harness decides this tick and then stops once the drain limit has passed.
  if (std::all_of(sims_.begin(), sims_.end(), [](const auto& sim) { return sim->trace_exhausted(); })) {
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
  for (std::size_t m = 0; m < fleets_.size(); ++m) {
    if (fleets_[m].model != variant.model.model_id || variant.model.ns != options_.model_namespace) continue;
    for (std::size_t i = 0; i < fleets_[m].variants.size(); ++i) {
      if (fleets_[m].variants[i].name != variant.variant) continue;
      auto applied = sims_[m]->set_desired(variant.variant, replicas);
      if (applied.ok()) desired_[m][i] = applied.value();
      return applied;
    }
  }
  return invalid_argument("the simulated fleet has no variant '" + variant.model.ns + "/" + variant.model.model_id +
                          "/" + variant.variant + "'");
}

std::vector<sim::RunReport> SimulatedFleet::reports() const {
  std::lock_guard lock(mutex_);
  std::vector<sim::RunReport> out;
  for (const auto& sim : sims_) out.push_back(sim->report());
  return out;
}

}  // namespace capstan::fleet
