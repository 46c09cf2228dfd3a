// The collector: asks the metrics source for each tick's observations. Spawned
// detached (its own thread), because a real source blocks on the network; a source
// that hangs makes the fleet's request time out, never a scheduler thread wait.
//
// It asks for the forward passes only of the models whose `policy` reads them
// (TickPolicy::reads_forward_passes), so that the others are never built: the fleet
// would drop them before recording anyway, but not before the tick had held them.
#pragma once

#include <memory>

#include "actors/messages.hpp"
#include "adapters/fleet/metrics_source.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan::actors {

collector_actor::behavior_type collector_behavior(collector_actor::pointer self,
                                                  std::shared_ptr<fleet::MetricsSource> source,
                                                  std::shared_ptr<const TickPolicy> policy);

}  // namespace capstan::actors
