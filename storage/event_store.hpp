// The daemon's event store on RocksDB (DESIGN.md "Event sourcing"; issue 21, item 1).
//
// Three column families:
//   events     key: big-endian u64 global sequence (1, 2, ...), value: records.hpp's
//              MessagePack. Keys sort as numbers, so a scan is in sequence order.
//   snapshots  key: scope + '\0' + big-endian u64 seq, value: opaque bytes (the actors
//              write the state codec's MessagePack). Scope is "fleet" or "ns/model_id".
//              The newest of a scope is the last key under its prefix.
//   metadata   "schema" (the store layout, kStoreSchema), "last_seq" (big-endian u64,
//              written in every append's batch, so the sequence survives retention
//              removing every event and is never reused), "capstan_version",
//              "created_at_s".
//
// An append is one WriteBatch (events, snapshots and last_seq together: all or
// nothing), synced before it returns unless StoreOptions::sync is false. A store whose
// schema this build does not know is refused at open, naming the schema and the path.
//
// Reading: a sequence range seeks straight to its first key; a time range is found by
// bisecting the sequence on the events' times (events are appended in time order), so
// both cost a seek, not a scan. Filters by model and type are served by the same scan
// reading only each value's envelope (type and model, without decoding the payload):
// bench/store_bench.cpp measures 1 M events in about 3 s on the shared 2-core machine
// (a full decode of every event about 4 s), fast enough for export and replay, which
// are offline; restart reads by sequence. So no index column family is kept; one keyed
// by model + seq is the step if a live path ever filters by model.
//
// Errors are Result values naming the path, the key and RocksDB's status; nothing
// throws out of the store. One writer per directory (RocksDB's lock); any number of
// read-only openers beside it, each seeing the events durable when it opened.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/core/result.hpp"
#include "storage/records.hpp"

namespace capstan::storage {

inline constexpr int kStoreSchema = 1;

struct StoreOptions {
  bool sync = true;  // fsync every append before it returns
  std::string capstan_version = "0.1.0";
  double created_at_s = 0;  // recorded when the store is created
};

struct Snapshot {
  std::string scope;  // "fleet" or "ns/model_id"
  std::uint64_t seq = 0;  // the state after applying events up to and including seq
  double time_s = 0;
  std::string bytes;  // opaque
};

// "ns/model_id": the snapshot scope of a model.
std::string snapshot_scope(const ModelKey& model);

struct EventFilter {
  std::uint64_t from_seq = 1;
  std::uint64_t to_seq = std::numeric_limits<std::uint64_t>::max();  // inclusive
  std::optional<double> from_time_s = std::nullopt;                   // inclusive
  std::optional<double> to_time_s = std::nullopt;                     // inclusive
  std::optional<ModelKey> model = std::nullopt;
  std::optional<std::string> type = std::nullopt;
};

struct RetentionPolicy {
  double max_age_s = 0;        // events older than now_s - max_age_s may go; 0 = no limit
  std::uint64_t max_bytes = 0; // the oldest events go until the rest fit; 0 = no limit
  double now_s = 0;
};

struct Metadata {
  int schema = 0;
  std::uint64_t last_seq = 0;
  std::string capstan_version;
  double created_at_s = 0;
};

class EventStore {
 public:
  virtual ~EventStore() = default;

  // Creates the directory and the store if missing.
  static Result<std::unique_ptr<EventStore>> open(const std::string& dir, const StoreOptions& options);
  // Never writes; works while a writer has the store open and sees what was durable
  // when it opened. A missing directory or one that is not a capstan store is refused.
  static Result<std::unique_ptr<EventStore>> open_read_only(const std::string& dir);

  // One WriteBatch: events get seq last_sequence()+1.. in order (their seq field is
  // ignored and returned set), snapshots are stored beside; durable on return when
  // sync. Returns the events with their seqs. Refused on a read-only store.
  virtual Result<std::vector<Event>> append(std::vector<Event> events, std::vector<Snapshot> snapshots = {}) = 0;
  virtual std::uint64_t last_sequence() const = 0;
  // The newest snapshot of each scope, scopes in byte order.
  virtual Result<std::vector<Snapshot>> latest_snapshots() const = 0;
  // The events the filter selects, in seq order; stops when visit returns false.
  // Returns whether the scan ran to the end (false: visit stopped it).
  Result<bool> for_each(const EventFilter& filter, const std::function<bool(const Event&)>& visit) const;
  // The same scan handing over each stored value undecoded (records.hpp's MessagePack),
  // valid only during the call: for a reader that decodes only some of the events, or
  // compares values as bytes (`replay verify`). A long scan reads ahead and leaves
  // RocksDB's block cache to the live reads.
  virtual Result<bool> for_each_value(const EventFilter& filter,
                                      const std::function<bool(std::uint64_t seq, std::string_view value)>& visit) const = 0;
  // Removes old events by age and size, never one after the oldest of the newest
  // snapshots (restart folds the events after each scope's newest snapshot), and
  // nothing at all while there is no snapshot. Superseded snapshots at or before the
  // cut go too. Returns how many events were removed.
  virtual Result<std::uint64_t> retain(const RetentionPolicy& policy) = 0;
  virtual Metadata metadata() const = 0;
  // A store opened read-only sees, after this, what the writer has made durable since it
  // opened or last refreshed: for a reader kept open beside a live daemon (the admin
  // API), instead of a new open per read. Nothing to do on the writer's own store.
  virtual std::optional<Error> refresh() = 0;
};

}  // namespace capstan::storage
