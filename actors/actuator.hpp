// The actuator: applies each tick's decisions through the connector, after the journal
// has made them durable. Every target is asserted every tick (the connector makes an
// unchanged one a no-op, as a controller reconciling would), and every change of
// target is recorded: `requested`, then `applied` with the replicas the fleet
// accepted or `failed` with the error once the retries are spent. Spawned detached: a
// connector may block or hang, and then the fleet's request times out instead.
#pragma once

#include <map>
#include <memory>

#include "actors/messages.hpp"
#include "adapters/fleet/connector.hpp"

namespace capstan::actors {

struct ActuatorOptions {
  int retries = 3;           // after the first attempt
  double backoff_s = 0.2;    // before the first retry; doubled after each
};

struct ActuatorState {
  std::shared_ptr<fleet::Connector> connector;
  ActuatorOptions options;
  std::map<VariantKey, int> applied;  // the last target the connector accepted
  static inline const char* name = "capstan.actuator";
};

actuator_actor::behavior_type actuator_behavior(actuator_actor::stateful_pointer<ActuatorState> self,
                                                std::shared_ptr<fleet::Connector> connector, ActuatorOptions options);

}  // namespace capstan::actors
