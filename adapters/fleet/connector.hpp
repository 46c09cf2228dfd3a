// How the daemon's decisions reach the fleet: the actuator calls its connector once per
// changed target. The embedded simulated fleet (simulated_fleet.hpp) and the dry run
// (dry_run_connector.hpp) implement it now; the Kubernetes scale subresource and
// Dynamo's virtual connector implement the same interface in their own issue.
//
// A connector may block or hang (an API server that does not answer): the actuator runs
// it on a detached actor with a timeout, so a hung connector never stalls a tick.
#pragma once

#include <string>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan::fleet {

class Connector {
 public:
  virtual ~Connector() = default;
  virtual std::string name() const = 0;
  // Asks for `replicas` replicas of `variant`; returns the count the fleet accepted (a
  // connector may clamp it), or why it failed.
  virtual Result<int> scale(const VariantKey& variant, int replicas) = 0;
};

}  // namespace capstan::fleet
