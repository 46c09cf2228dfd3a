// A read-only view of an event store whose scans decode ahead on a second thread: the
// events come to `visit` in the same order, while the next batch is read and decoded
// beside the fold that consumes this one. verify and what-if fold over it, so reading
// (about a third of their time) overlaps the tick driver's work on a second core.
#pragma once

#include "storage/event_store.hpp"

namespace capstan::replay {

class ReadAheadStore : public storage::EventStore {
 public:
  explicit ReadAheadStore(const storage::EventStore& store) : store_(store) {}

  // Refused: replay never writes.
  Result<std::vector<storage::Event>> append(std::vector<storage::Event> events,
                                             std::vector<storage::Snapshot> snapshots = {}) override;
  std::uint64_t last_sequence() const override { return store_.last_sequence(); }
  Result<std::vector<storage::Snapshot>> latest_snapshots() const override { return store_.latest_snapshots(); }
  // The scan runs on its own thread, batches of events handed over through a bounded queue.
  Result<bool> for_each(const storage::EventFilter& filter,
                        const std::function<bool(const storage::Event&)>& visit) const override;
  Result<std::uint64_t> retain(const storage::RetentionPolicy& policy) override;
  storage::Metadata metadata() const override { return store_.metadata(); }

 private:
  const storage::EventStore& store_;
};

}  // namespace capstan::replay
