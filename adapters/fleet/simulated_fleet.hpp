// The embedded simulated fleet as the daemon's metrics source and connector: the same
// continuous-batching simulator `simulate` runs (sim/), one Simulation per model, fed by
// a trace. observe() advances every model's simulation to the tick's time and reports
// what its pods saw; scale() sets a variant's desired replicas, which become ready a
// pending + cold-start time later, as on a cluster.
//
// The tick semantics are the harness's (both drive sim::SimulatedModels), so that
// `capstan run --clock virtual` decides exactly what `capstan simulate` decides for the
// same trace, fleet, seed and policy: observe() at t = k * tick, decisions applied before
// the next observe(), and the run ends when the trace is over and the fleet idle, or
// when the drain limit has passed since the trace ended.
//
// The simulated fleet is not part of the daemon's durable state: after a restart it
// starts again from its initial replicas at the tick the daemon resumes from.
//
// Thread-safe: the collector and the actuator call it from different actors.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "adapters/fleet/connector.hpp"
#include "adapters/fleet/metrics_source.hpp"
#include "sim/harness.hpp"
#include "sim/simulated_models.hpp"

namespace capstan::fleet {

struct SimulatedFleetOptions {
  SloTargets slo;          // what the simulation counts as met
  std::uint64_t seed = 1;  // model 0's; the others' as in the harness (sim::model_seed)
  std::string model_namespace = "sim";
  double drain_limit_s = 3600;  // sim::HarnessOptions::drain_limit_s
  // A live fleet never ends: the trace over, the fleet idles and every tick is decided
  // (the demo on the wall clock). false: the harness's end, for virtual time.
  bool endless = false;
};

class SimulatedFleet : public MetricsSource, public Connector {
 public:
  // Errors as sim::run_policy's: no model, two fleets naming one model, a priority < 1.
  static Result<std::unique_ptr<SimulatedFleet>> create(std::vector<sim::ModelInput> models,
                                                        const SimulatedFleetOptions& options);

  Result<Observed> observe(const TickTime& time, const ReadsForwardPasses& reads_forward_passes) override;
  std::string name() const override { return "sim"; }
  Result<int> scale(const VariantKey& variant, int replicas) override;

  const std::vector<sim::FleetConfig>& fleets() const { return models_.fleets(); }
  // Requests, attainment and GPU-hours of each model so far.
  std::vector<sim::RunReport> reports() const;

 private:
  SimulatedFleet(sim::SimulatedModels models, const SimulatedFleetOptions& options)
      : options_(options), models_(std::move(models)) {}

  mutable std::mutex mutex_;
  SimulatedFleetOptions options_;
  sim::SimulatedModels models_;
  double exhausted_at_s_ = -1;
};

}  // namespace capstan::fleet
