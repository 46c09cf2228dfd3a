// The journal: owns the event store and makes each batch durable before it replies
// (storage/event_store.hpp: one WriteBatch, synced per tick unless configured
// otherwise). Spawned detached, as RocksDB's writes block. A snapshot in a batch is
// stamped with the sequence of the batch's last event: the state it holds is the state
// after every event up to that sequence.
#pragma once

#include <memory>

#include "actors/messages.hpp"
#include "storage/event_store.hpp"

namespace capstan::actors {

journal_actor::behavior_type journal_behavior(journal_actor::pointer self, std::shared_ptr<storage::EventStore> store);

}  // namespace capstan::actors
