#include "replay/read_ahead_store.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace capstan::replay {

namespace {

constexpr std::size_t kBatch = 512;       // events handed over at once
constexpr std::size_t kBatchesAhead = 8;  // how far the reader may run ahead

struct Handover {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::vector<storage::Event>> batches;
  bool done = false;      // the reader has finished (or failed)
  bool stopped = false;   // the consumer wants no more
  std::optional<Result<bool>> result;
};

}  // namespace

Result<std::vector<storage::Event>> ReadAheadStore::append(std::vector<storage::Event>, std::vector<storage::Snapshot>) {
  return invalid_argument("replay reads the store only: append refused");
}

Result<std::uint64_t> ReadAheadStore::retain(const storage::RetentionPolicy&) {
  return invalid_argument("replay reads the store only: retain refused");
}

Result<bool> ReadAheadStore::for_each(const storage::EventFilter& filter,
                                      const std::function<bool(const storage::Event&)>& visit) const {
  Handover h;
  std::thread reader([&] {
    std::vector<storage::Event> batch;
    batch.reserve(kBatch);
    auto hand_over = [&] {
      std::unique_lock lock(h.mutex);
      h.changed.wait(lock, [&] { return h.batches.size() < kBatchesAhead || h.stopped; });
      if (h.stopped) return false;
      h.batches.push_back(std::move(batch));
      h.changed.notify_all();
      batch = {};
      batch.reserve(kBatch);
      return true;
    };
    Result<bool> ran = store_.for_each(filter, [&](const storage::Event& e) {
      batch.push_back(e);
      return batch.size() < kBatch || hand_over();
    });
    if (ran.ok() && !batch.empty()) hand_over();
    std::lock_guard lock(h.mutex);
    h.result = std::move(ran);
    h.done = true;
    h.changed.notify_all();
  });
  bool more = true;
  for (;;) {
    std::vector<storage::Event> batch;
    {
      std::unique_lock lock(h.mutex);
      h.changed.wait(lock, [&] { return !h.batches.empty() || h.done; });
      if (h.batches.empty()) break;
      batch = std::move(h.batches.front());
      h.batches.pop_front();
      h.changed.notify_all();
    }
    for (const storage::Event& e : batch)
      if (!visit(e)) {
        more = false;
        break;
      }
    if (!more) break;
  }
  {
    std::lock_guard lock(h.mutex);
    h.stopped = true;
    h.changed.notify_all();
  }
  reader.join();
  if (!h.result->ok()) return h.result->error();
  return more;
}

}  // namespace capstan::replay
