#include "sim/simulated_models.hpp"

#include <algorithm>
#include <set>

namespace capstan::sim {

Result<SimulatedModels> SimulatedModels::create(std::vector<ModelInput> models, std::uint64_t seed,
                                                const SloTargets& slo) {
  if (models.empty()) return invalid_argument("a run needs at least one model");
  std::set<std::string> names;
  SimulatedModels out;
  for (std::size_t m = 0; m < models.size(); ++m) {
    ModelInput& model = models[m];
    const std::string where = "models[" + std::to_string(m) + "]";
    if (!names.insert(model.fleet.model).second)
      return invalid_argument(where + ": model '" + model.fleet.model +
                              "' appears twice; decisions are routed by model id");
    if (model.priority < 1)
      return invalid_argument(where + ": priority must be >= 1, got " + std::to_string(model.priority));
    if (!model.trace) return invalid_argument(where + ": no trace");
    out.sims_.push_back(std::make_unique<Simulation>(model.fleet, std::move(model.trace), model_seed(seed, m), slo));
    out.desired_.emplace_back(model.fleet.variants.size());
    out.priorities_.push_back(model.priority);
    out.fleets_.push_back(std::move(model.fleet));
  }
  return out;
}

Result<bool> SimulatedModels::advance_to(double t_s) {
  bool more = false;
  for (auto& sim : sims_) {
    if (sim->advance_to(t_s)) more = true;
    if (sim->error()) return *sim->error();
  }
  return more;
}

std::vector<Observation> SimulatedModels::observe() {
  std::vector<Observation> out;
  out.reserve(sims_.size());
  for (auto& sim : sims_) out.push_back(sim->observe());
  return out;
}

TickInput SimulatedModels::tick_input(const std::vector<Observation>& observations, double t_s, double interval_s,
                                      const std::string& model_namespace,
                                      const ReadsForwardPasses& reads_forward_passes) const {
  TickInput input;
  input.now_s = t_s;
  input.interval_s = interval_s;
  for (std::size_t m = 0; m < sims_.size(); ++m) {
    TickInput one =
        to_tick_input(observations[m], fleets_[m], desired_[m], interval_s, model_namespace, reads_forward_passes);
    one.models[0].priority = priorities_[m];
    input.models.push_back(std::move(one.models[0]));
  }
  return input;
}

Result<int> SimulatedModels::set_desired(std::size_t model, const std::string& variant, int replicas) {
  const auto& variants = fleets_.at(model).variants;
  const auto it = std::find_if(variants.begin(), variants.end(), [&](const auto& v) { return v.name == variant; });
  auto applied = sims_[model]->set_desired(variant, replicas);
  if (applied.ok() && it != variants.end())
    desired_[model][static_cast<std::size_t>(it - variants.begin())] = applied.value();
  return applied;
}

std::size_t SimulatedModels::find(const std::string& name) const {
  const auto it = std::find_if(fleets_.begin(), fleets_.end(), [&](const FleetConfig& f) { return f.model == name; });
  return static_cast<std::size_t>(it - fleets_.begin());
}

bool SimulatedModels::trace_exhausted() const {
  return std::all_of(sims_.begin(), sims_.end(), [](const auto& sim) { return sim->trace_exhausted(); });
}

std::vector<RunReport> SimulatedModels::reports() const {
  std::vector<RunReport> out;
  for (const auto& sim : sims_) out.push_back(sim->report());
  return out;
}

}  // namespace capstan::sim
