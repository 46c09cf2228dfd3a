#include "actors/journal.hpp"

namespace capstan::actors {

journal_actor::behavior_type journal_behavior(journal_actor::pointer, std::shared_ptr<storage::EventStore> store) {
  return {
      [store](append_atom, JournalBatch& batch) -> caf::result<JournalAck> {
        // A snapshot without a seq is the state after this batch (the store gives it the
        // batch's last); the fleet's snapshots carry the decision batch's before them.
        auto appended = store->append(std::move(batch.events), std::move(batch.snapshots));
        if (!appended.ok()) return caf::make_error(caf::sec::runtime_error, "event store: " + appended.error().message);
        // Retention never removes what the newest snapshot needs (event_store.hpp); a
        // failure to trim loses nothing, so it does not fail the durable batch.
        if (batch.retention) (void)store->retain(*batch.retention);
        std::vector<storage::Event> events = std::move(appended).value();
        const std::uint64_t first = events.empty() ? 0 : events.front().seq;
        return JournalAck{first, store->last_sequence(), std::move(events)};
      },
  };
}

}  // namespace capstan::actors
