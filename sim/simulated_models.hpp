// The models of one simulated run: a Simulation per model fed by its trace, and the
// target last set on each variant. The harness (run_policy) and the daemon's simulated
// fleet (adapters/fleet/simulated_fleet.hpp) both drive their ticks through it, so that
// `capstan run --clock virtual` and `capstan simulate` cannot drift apart: advance every
// model to t = k * tick, observe, turn the observations into the policies' TickInput,
// and apply each decision's target before the next tick.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/harness.hpp"
#include "sim/simulation.hpp"

namespace capstan::sim {

class SimulatedModels {
 public:
  // Model m is seeded model_seed(seed, m). Errors name the model's index: none at all,
  // two models with one name (decisions are routed by model id), a priority < 1, no trace.
  static Result<SimulatedModels> create(std::vector<ModelInput> models, std::uint64_t seed, const SloTargets& slo);

  // Advances every model to t_s: whether any of them still has requests to come or to
  // finish; the first simulation's error (a malformed trace line) instead.
  Result<bool> advance_to(double t_s);
  // Each model's pods and fleet state since the previous observe().
  std::vector<Observation> observe();
  // The policies' view of `observations` (one per model, from observe()) at t_s: each
  // model with its variants' last targets and its priority, and its forward passes when
  // `reads_forward_passes` says they are read (empty: always).
  TickInput tick_input(const std::vector<Observation>& observations, double t_s, double interval_s,
                       const std::string& model_namespace, const ReadsForwardPasses& reads_forward_passes = {}) const;
  // Sets variant `variant` of model `model` to `replicas`: the target the simulation
  // accepted, which the next tick_input() reports as the variant's desired count.
  Result<int> set_desired(std::size_t model, const std::string& variant, int replicas);
  // The index of the model named `name`; size() when none is.
  std::size_t find(const std::string& name) const;
  // Whether every model's trace is over.
  bool trace_exhausted() const;

  std::size_t size() const { return sims_.size(); }
  const std::vector<FleetConfig>& fleets() const { return fleets_; }
  const std::vector<int>& priorities() const { return priorities_; }
  const std::vector<std::unique_ptr<Simulation>>& simulations() const { return sims_; }
  std::vector<RunReport> reports() const;

 private:
  std::vector<FleetConfig> fleets_;
  std::vector<int> priorities_;
  std::vector<std::unique_ptr<Simulation>> sims_;
  std::vector<std::vector<std::optional<int>>> desired_;  // last accepted target per variant, fleet order
};

}  // namespace capstan::sim
