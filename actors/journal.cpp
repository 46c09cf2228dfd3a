#include "actors/journal.hpp"

namespace capstan::actors {

journal_actor::behavior_type journal_behavior(journal_actor::pointer, std::shared_ptr<storage::EventStore> store) {
  return {
      [store](append_atom, JournalBatch& batch) -> caf::result<JournalAck> {
        std::size_t events = 0;
        for (const storage::EncodedEvents& run : batch.events) events += run.size();
        const std::uint64_t last = store->last_sequence() + events;
        for (storage::Snapshot& s : batch.snapshots) s.seq = last;
        auto appended = store->append(batch.events, std::move(batch.snapshots));
        if (!appended.ok()) return caf::make_error(caf::sec::runtime_error, "event store: " + appended.error().message);
        // Retention never removes what the newest snapshot needs (event_store.hpp); a
        // failure to trim loses nothing, so it does not fail the durable batch.
        if (batch.retention) (void)store->retain(*batch.retention);
        const std::uint64_t first = events == 0 ? 0 : appended.value();
        return JournalAck{first, store->last_sequence(), std::move(batch.events)};
      },
  };
}

}  // namespace capstan::actors
