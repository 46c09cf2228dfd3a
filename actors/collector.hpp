// The collector: asks the metrics source for each tick's observations. Spawned
// detached (its own thread), because a real source blocks on the network; a source
// that hangs makes the fleet's request time out, never a scheduler thread wait.
#pragma once

#include <memory>

#include "actors/messages.hpp"
#include "adapters/fleet/metrics_source.hpp"

namespace capstan::actors {

collector_actor::behavior_type collector_behavior(collector_actor::pointer self,
                                                  std::shared_ptr<fleet::MetricsSource> source);

}  // namespace capstan::actors
