// The actuator: applies each tick's decisions through the connector, after the journal
// has made them durable. Every target is asserted every tick (the connector makes an
// unchanged one a no-op, as a controller reconciling would), and every change of
// target is recorded: `requested`, then `applied` with the replicas the fleet
// accepted or `failed` with the error once the retries are spent. Spawned detached: a
// connector may block or hang, and then the fleet's request times out instead.
//
// Advisory mode (`--connector advisory`, issue 23 part 3): the actuator applies nothing
// by itself. It keeps the approval queue (actuator_approvals.hpp), records its reviews
// through the journal, and applies an approved decision at the next tick through the
// same connector call and with the same actuation records as above.
#pragma once

#include <map>
#include <memory>

#include "actors/actuator_approvals.hpp"
#include "actors/messages.hpp"
#include "adapters/fleet/connector.hpp"

namespace capstan::actors {

struct ActuatorOptions {
  int retries = 3;           // after the first attempt
  double backoff_s = 0.2;    // before the first retry; doubled after each
  bool advisory = false;     // hold every change for a person's approval
  double journal_timeout_s = 10;  // advisory: recording the reviews
};

struct ActuatorState {
  std::shared_ptr<fleet::Connector> connector;
  ActuatorOptions options;
  std::map<VariantKey, int> applied;  // the last target the connector accepted
  journal_actor journal;              // advisory: where the reviews are recorded
  ApprovalQueue approvals;            // advisory only
  static inline const char* name = "capstan.actuator";
};

// `journal` and `approvals` (ApprovalQueue::restore after a restart) serve advisory mode only.
actuator_actor::behavior_type actuator_behavior(actuator_actor::stateful_pointer<ActuatorState> self,
                                                std::shared_ptr<fleet::Connector> connector, ActuatorOptions options,
                                                journal_actor journal, ApprovalQueue approvals);

}  // namespace capstan::actors
