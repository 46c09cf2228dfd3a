// One probe of the fleet-level yardsticks (fleet_oracle.hpp, static_fleet.hpp): the
// fleet itself, with a fixed number of warm replicas per variant behind its router,
// fed a stream of requests, and whether at least `attainment_target` of them complete
// within both SLO targets. Requests still unfinished when the probe gives up count as
// misses. A probe stops as soon as the misses alone rule the target out, so a count
// that is far too small costs little.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/model/slo_targets.hpp"
#include "sim/fleet_config.hpp"
#include "sim/request.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

// A trace held in memory (one oracle window's requests).
class RequestListTrace : public TraceSource {
 public:
  explicit RequestListTrace(std::vector<Request> requests) : requests_(std::move(requests)) {}
  Result<std::optional<Request>> next() override {
    if (next_ >= requests_.size()) return std::optional<Request>{};
    return std::optional<Request>{requests_[next_++]};
  }

 private:
  std::vector<Request> requests_;
  std::size_t next_ = 0;
};

// `fleet` with exactly counts[i] warm replicas of variant i (min = max = initial).
FleetConfig fixed_fleet(const FleetConfig& fleet, const std::vector<int>& counts);

struct FixedFleetProbe {
  bool meets = false;
  long long requests = 0;  // arrived (all of them unless the probe stopped early)
  long long met_slo = 0;
  double attainment = 0;   // met_slo / the requests expected (a bound from above when stopped early)
  bool stopped_early = false;
  double gpu_hours = 0;    // until the fleet was idle (or the probe stopped)
  double cost = 0;
  double duration_s = 0;
};

struct FixedFleetProbeOptions {
  double attainment_target = 0.95;
  long long expected_requests = 0;  // what the trace holds, for stopping early; 0: run to the end
  std::uint64_t seed = 1;
  double give_up_after_s = 3600;    // past the last arrival
  double step_s = 30;               // how often the misses are checked
  // Empty: every replica warm at t = 0. Otherwise the replicas warm at t = 0 per variant
  // (a fleet's initial ones, as a policy's run starts); those of `counts` above them are
  // asked for at t = 0 and serve after their pending and cold start.
  std::vector<int> warm_at_start;
};

// Errors when the trace is malformed.
Result<FixedFleetProbe> probe_fixed_fleet(const FleetConfig& fleet, const std::vector<int>& counts,
                                          std::unique_ptr<TraceSource> trace, const SloTargets& slo,
                                          const FixedFleetProbeOptions& options);

// The fewest met requests out of `requests` that reach `attainment_target`.
long long required_met(long long requests, double attainment_target);

}  // namespace capstan::sim
