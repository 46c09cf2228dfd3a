// A simulated fleet served in real time: a sim::Simulation behind one mutex, so the
// HTTP handlers and the clock that advances it never race. The caller maps the wall
// clock to virtual time (virtual = wall elapsed x speedup) and calls advance_to();
// everything else reads a consistent snapshot: the live pods (every replica not gone),
// one pod's or the router's Prometheus text, and a variant's desired/current counts,
// which set_desired() changes as a Kubernetes Scale PATCH would.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "domain/core/result.hpp"
#include "sim/fleet_config.hpp"
#include "sim/run_report.hpp"
#include "sim/simulation.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim_serve {

struct LivePod {
  std::string name;
  std::string variant;
  std::string state;  // pending, loading, ready, draining (sim/replica.hpp)
  bool operator==(const LivePod&) const = default;
};

struct VariantScale {
  std::string variant;
  int desired = 0;
  int current = 0;  // pending + loading + ready (draining excluded), as Deployment status
};

class LiveFleet {
 public:
  LiveFleet(sim::FleetConfig config, std::unique_ptr<sim::TraceSource> trace, std::uint64_t seed);

  // Advances virtual time (never backwards); false once the trace is done and the
  // fleet idle, or a trace row was malformed (see error()).
  bool advance_to(double virtual_s);

  double now_s() const;
  std::vector<LivePod> pods() const;
  // nullopt when no live pod has this name.
  std::optional<std::string> pod_metrics(const std::string& pod) const;
  std::string router_metrics() const;
  std::optional<VariantScale> scale(const std::string& variant) const;
  // Applies a desired count (clamped to the variant's bounds); unknown variant: error.
  Result<VariantScale> set_desired(const std::string& variant, int replicas);

  std::optional<Error> error() const;
  sim::RunReport report() const;
  const std::string& model() const { return model_; }

 private:
  std::optional<VariantScale> scale_locked(const std::string& variant) const;

  mutable std::mutex mutex_;
  sim::Simulation sim_;
  std::string model_;
};

}  // namespace capstan::sim_serve
