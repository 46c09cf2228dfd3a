#include "storage/event_store.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include "domain/core/format.hpp"
#include "storage/event_value_writer.hpp"

namespace capstan::storage {
namespace {

namespace fs = std::filesystem;

constexpr const char* kEventsFamily = "events";
constexpr const char* kSnapshotsFamily = "snapshots";
constexpr const char* kMetadataFamily = "metadata";
constexpr std::uint64_t kMaxSeq = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kBlockCacheBytes = 4 << 20;
constexpr std::size_t kEventsWriteBufferBytes = 2 << 20;
constexpr std::size_t kSmallWriteBufferBytes = 1 << 20;
// A WriteBatch record besides its value: its tag, family, the key and two lengths.
constexpr double kRecordOverheadBytes = 16;
constexpr std::size_t kKeptBatchBytes = 16 << 20;

std::string big_endian(std::uint64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) out[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xFF);
  return out;
}

std::optional<std::uint64_t> read_big_endian(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<std::uint8_t>(c);
  return v;
}

std::string seq_key(std::uint64_t seq) { return big_endian(seq); }

std::string snapshot_key(const std::string& scope, std::uint64_t seq) { return scope + '\0' + big_endian(seq); }

std::string_view view(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

// domain/core/result.hpp has no code for I/O yet (adding one rebuilds every layer): a
// store's errors are kInvalidArgument, and the message carries the path, the key and
// RocksDB's status.
Error storage_error(const std::string& what, const rocksdb::Status& status) {
  return invalid_argument(what + ": " + status.ToString());
}

Error store_error(const std::string& message) { return invalid_argument(message); }

// A snapshot's value: its time as the bits of a big-endian double, then its bytes.
std::string snapshot_value(const Snapshot& s) { return big_endian(std::bit_cast<std::uint64_t>(s.time_s)) + s.bytes; }

Result<Snapshot> read_snapshot(const std::string& dir, std::string_view key, std::string_view value) {
  const std::size_t nul = key.find('\0');
  const auto seq = nul == std::string_view::npos ? std::nullopt : read_big_endian(key.substr(nul + 1));
  if (!seq || value.size() < 8) {
    return store_error(dir + ": snapshot key '" + std::string(key.substr(0, nul)) + "' is malformed (" +
                       std::to_string(key.size()) + " key bytes, " + std::to_string(value.size()) + " value bytes)");
  }
  return Snapshot{std::string(key.substr(0, nul)), *seq,
                  std::bit_cast<double>(*read_big_endian(value.substr(0, 8))), std::string(value.substr(8))};
}

// A scan over this many events or more is a replay or an export, not a page of the admin
// API: it reads its files ahead in large blocks and keeps its blocks out of the cache.
constexpr std::uint64_t kLongScanEvents = 4096;
constexpr std::size_t kLongScanReadaheadBytes = 4 << 20;

class RocksEventStore final : public EventStore {
 public:
  RocksEventStore(std::string dir, rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*> handles, bool read_only,
                  bool sync, std::string secondary_dir)
      : dir_(std::move(dir)),
        db_(db),
        handles_(std::move(handles)),
        read_only_(read_only),
        sync_(sync),
        secondary_dir_(std::move(secondary_dir)) {
    bytes_by_kind_.fill(1024);
  }

  ~RocksEventStore() override {
    // A clean close writes the memtables out, so that the next open reads tables instead
    // of replaying the log (after a kill, it replays).
    if (!read_only_) (void)db_->Flush(rocksdb::FlushOptions(), std::vector<rocksdb::ColumnFamilyHandle*>(handles_.begin() + 1, handles_.end()));
    for (rocksdb::ColumnFamilyHandle* h : handles_) db_->DestroyColumnFamilyHandle(h);
    delete db_;
    if (!secondary_dir_.empty()) {
      std::error_code ec;
      fs::remove_all(secondary_dir_, ec);
    }
  }

  // Reads the metadata of an existing store, or writes that of a new one.
  std::optional<Error> load_metadata(bool created, const StoreOptions& options) {
    if (created) {
      meta_ = {kStoreSchema, 0, options.capstan_version, options.created_at_s};
      rocksdb::WriteBatch batch;
      batch.Put(metadata_family(), "schema", std::to_string(kStoreSchema));
      batch.Put(metadata_family(), "last_seq", big_endian(0));
      batch.Put(metadata_family(), "capstan_version", options.capstan_version);
      batch.Put(metadata_family(), "created_at_s", big_endian(std::bit_cast<std::uint64_t>(options.created_at_s)));
      rocksdb::WriteOptions write;
      write.sync = true;
      const rocksdb::Status s = db_->Write(write, &batch);
      if (!s.ok()) return storage_error(dir_ + ": writing the new store's metadata", s);
      return std::nullopt;
    }
    std::string schema;
    rocksdb::Status s = db_->Get({}, metadata_family(), "schema", &schema);
    if (s.IsNotFound()) return store_error(dir_ + " is not a capstan event store (its metadata has no schema)");
    if (!s.ok()) return storage_error(dir_ + ": reading metadata key 'schema'", s);
    if (schema != std::to_string(kStoreSchema)) {
      return store_error(dir_ + ": store schema " + schema + " is not a version this build reads (" +
                         std::to_string(kStoreSchema) + ")");
    }
    meta_.schema = kStoreSchema;
    std::string last_seq, version, created_at;
    using Member = std::pair<const char*, std::string*>;
    for (auto [key, out] : {Member{"last_seq", &last_seq}, Member{"capstan_version", &version}, Member{"created_at_s", &created_at}}) {
      s = db_->Get({}, metadata_family(), key, out);
      if (!s.ok()) return storage_error(dir_ + ": reading metadata key '" + key + "'", s);
    }
    const auto seq = read_big_endian(last_seq);
    const auto created_bits = read_big_endian(created_at);
    if (!seq || !created_bits) return store_error(dir_ + ": metadata last_seq or created_at_s is not 8 bytes");
    meta_.last_seq = *seq;
    meta_.capstan_version = version;
    meta_.created_at_s = std::bit_cast<double>(*created_bits);
    return read_only_ ? std::nullopt : load_last_time();
  }

  Result<std::vector<Event>> append(std::vector<Event> events, std::vector<Snapshot> snapshots) override {
    if (read_only_) return store_error(dir_ + ": append on a store opened read-only");
    if (events.empty() && snapshots.empty()) return events;
    // A batch of its own per append, reserved once for what it is expected to hold: one
    // kept between appends kept the pages of the largest tick so far resident, and one
    // left to grow copied itself each time it doubled. The estimate's margin costs no
    // memory, as pages beyond what is written are never touched (the daemon's malloc
    // maps blocks this large afresh). Only a batch as large as a fleet of several
    // thousand variants makes is kept: faulting in 25 MB afresh cost a 10,000-variant
    // tick 35 ms of CPU (bench/store_bench.cpp), and such a fleet's memory is its state.
    const std::size_t expected = expected_batch_bytes(events, snapshots);
    std::optional<rocksdb::WriteBatch> fresh;
    if (expected < kKeptBatchBytes) {
      batch_ = rocksdb::WriteBatch();  // a fleet that shrank gives the kept one back
      fresh.emplace(expected);
    } else {
      batch_.Clear();
    }
    rocksdb::WriteBatch& batch = fresh ? *fresh : batch_;
    std::uint64_t seq = meta_.last_seq;
    double last_time_s = last_time_s_;
    for (Event& e : events) {
      e.seq = ++seq;
      if (!std::isfinite(e.time_s) || e.time_s < last_time_s) {
        return invalid_argument("event " + std::to_string(seq) + " (" + event_type(e.payload) + ") time_s must be finite and not before " +
                                fmt_num(last_time_s) + " (events are appended in time order), got " + fmt_num(e.time_s));
      }
      last_time_s = e.time_s;
      value_.clear();
      write_event_value(e, value_);
      bytes_by_kind_[kind_of(e)] = static_cast<double>(value_.size());
      batch.Put(events_family(), seq_key(seq), rocksdb::Slice(reinterpret_cast<const char*>(value_.data()), value_.size()));
    }
    for (Snapshot& s : snapshots) {
      if (s.scope.empty() || s.scope.find('\0') != std::string::npos) {
        return invalid_argument("snapshot scope must be a non-empty name without NUL, got '" + s.scope + "'");
      }
      if (s.seq == 0) s.seq = seq;
      if (s.seq > seq) {
        return invalid_argument("snapshot of '" + s.scope + "' seq must be at most " + std::to_string(seq) +
                                " (the last event of this append), got " + std::to_string(s.seq));
      }
      batch.Put(snapshots_family(), snapshot_key(s.scope, s.seq), snapshot_value(s));
    }
    batch.Put(metadata_family(), "last_seq", big_endian(seq));
    rocksdb::WriteOptions write;
    write.sync = sync_;
    const rocksdb::Status status = db_->Write(write, &batch);
    if (!status.ok()) {
      return storage_error(dir_ + ": appending events " + std::to_string(meta_.last_seq + 1) + ".." + std::to_string(seq), status);
    }
    meta_.last_seq = seq;
    last_time_s_ = last_time_s;
    flush_if_full(events_family(), kEventsWriteBufferBytes);
    if (!snapshots.empty()) flush_if_full(snapshots_family(), kSmallWriteBufferBytes);
    return events;
  }

  std::uint64_t last_sequence() const override { return meta_.last_seq; }

  std::optional<Error> refresh() override {
    if (!read_only_) return std::nullopt;
    const rocksdb::Status s = db_->TryCatchUpWithPrimary();
    if (!s.ok()) return storage_error(dir_ + ": catching up with the writer", s);
    return load_metadata(false, {});
  }

  Metadata metadata() const override { return meta_; }

  Result<std::vector<Snapshot>> latest_snapshots() const override {
    std::vector<Snapshot> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, snapshots_family()));
    // Each scope's newest is the last key under scope + '\0'; then on to the next scope.
    for (it->SeekToFirst(); it->Valid();) {
      const std::string_view key = view(it->key());
      const std::string scope(key.substr(0, key.find('\0')));
      it->SeekForPrev(scope + '\0' + std::string(8, '\xFF'));
      if (!it->Valid()) break;
      auto snapshot = read_snapshot(dir_, view(it->key()), view(it->value()));
      if (!snapshot) return snapshot.error();
      out.push_back(std::move(snapshot).value());
      it->Seek(scope + '\x01');
    }
    if (!it->status().ok()) return storage_error(dir_ + ": reading snapshots", it->status());
    return out;
  }

  Result<bool> for_each_value(const EventFilter& filter,
                              const std::function<bool(std::uint64_t, std::string_view)>& visit) const override {
    using Bound = std::pair<const char*, std::optional<double>>;
    for (auto [name, time] : {Bound{"from_time_s", filter.from_time_s}, Bound{"to_time_s", filter.to_time_s}}) {
      if (time && std::isnan(*time)) return invalid_argument(std::string("event filter ") + name + " must be a number, got nan");
    }
    std::uint64_t from = std::max<std::uint64_t>(filter.from_seq, 1);
    std::uint64_t to = std::min(filter.to_seq, meta_.last_seq);
    if (filter.from_time_s) {
      auto first = first_at_or_after(*filter.from_time_s, from, to);
      if (!first) return first.error();
      from = *first;
    }
    if (filter.to_time_s && from <= to) {
      // The last event at or before to_time_s is the one before the first after it.
      auto after = first_at_or_after(std::nextafter(*filter.to_time_s, HUGE_VAL), from, to);
      if (!after) return after.error();
      to = *after - 1;
    }
    if (from > to) return true;
    const std::string upper = seq_key(to == kMaxSeq ? kMaxSeq : to + 1);
    const rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions read;
    if (to != kMaxSeq) read.iterate_upper_bound = &upper_slice;
    if (to - from >= kLongScanEvents) {
      read.readahead_size = kLongScanReadaheadBytes;
      read.fill_cache = false;
    }
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, events_family()));
    for (it->Seek(seq_key(from)); it->Valid(); it->Next()) {
      const auto seq = read_big_endian(view(it->key()));
      if (!seq) return store_error(dir_ + ": an events key is not 8 bytes");
      const std::string_view value = view(it->value());
      if (filter.model || filter.type) {
        auto header = decode_event_header(*seq, value);
        if (!header) return header.error();
        if (filter.type && header->type != *filter.type) continue;
        if (filter.model && header->model != filter.model) continue;
      }
      if (!visit(*seq, value)) return false;
    }
    if (!it->status().ok()) return storage_error(dir_ + ": reading events from " + std::to_string(from), it->status());
    return true;
  }

  Result<std::uint64_t> retain(const RetentionPolicy& policy) override {
    if (read_only_) return store_error(dir_ + ": retain on a store opened read-only");
    if (!(policy.max_age_s >= 0) || !std::isfinite(policy.max_age_s)) {
      return invalid_argument("retention max_age_s must be a finite number >= 0, got " + fmt_num(policy.max_age_s));
    }
    if (!std::isfinite(policy.now_s)) return invalid_argument("retention now_s must be finite, got " + fmt_num(policy.now_s));
    auto newest = latest_snapshots();
    if (!newest) return newest.error();
    if (newest->empty()) return std::uint64_t{0};
    std::uint64_t needed_after = kMaxSeq;  // the oldest of the newest snapshots
    for (const Snapshot& s : *newest) needed_after = std::min(needed_after, s.seq);
    auto first = first_sequence();
    if (!first) return first.error();

    std::uint64_t cut = 0;  // events 1..cut may go
    if (policy.max_age_s > 0) {
      auto young = first_at_or_after(policy.now_s - policy.max_age_s, *first, meta_.last_seq);
      if (!young) return young.error();
      cut = std::max(cut, *young - 1);
    }
    if (policy.max_bytes > 0) {
      auto over = oldest_beyond_bytes(policy.max_bytes);
      if (!over) return over.error();
      cut = std::max(cut, *over);
    }
    cut = std::min(cut, needed_after);
    if (cut < *first) return std::uint64_t{0};

    rocksdb::WriteBatch batch;
    batch.DeleteRange(events_family(), seq_key(*first), seq_key(cut + 1));
    if (auto stale = superseded_snapshots(*newest, cut, batch)) return *stale;
    rocksdb::WriteOptions write;
    write.sync = sync_;
    rocksdb::Status s = db_->Write(write, &batch);
    if (!s.ok()) return storage_error(dir_ + ": removing events " + std::to_string(*first) + ".." + std::to_string(cut), s);
    // Give the space back now: retention by size is about the disk.
    const std::string begin = seq_key(*first), end = seq_key(cut + 1);
    const rocksdb::Slice begin_slice(begin), end_slice(end);
    s = db_->CompactRange({}, events_family(), &begin_slice, &end_slice);
    if (!s.ok()) return storage_error(dir_ + ": compacting removed events", s);
    return cut - *first + 1;
  }

 private:
  rocksdb::ColumnFamilyHandle* events_family() const { return handles_[1]; }
  rocksdb::ColumnFamilyHandle* snapshots_family() const { return handles_[2]; }
  rocksdb::ColumnFamilyHandle* metadata_family() const { return handles_[3]; }

  // RocksDB switches a memtable that a write took past its write buffer only at the
  // family's next write: the snapshots' one 20 ticks later, the events' one at the next
  // tick when no actuation follows, which then held two ticks of events while the first
  // was flushed. Written out now instead, in the background; a failure to ask loses
  // nothing (the next write does it).
  void flush_if_full(rocksdb::ColumnFamilyHandle* family, std::size_t write_buffer_bytes) {
    std::uint64_t active = 0;
    if (!db_->GetIntProperty(family, rocksdb::DB::Properties::kCurSizeActiveMemTable, &active) || active < write_buffer_bytes)
      return;
    rocksdb::FlushOptions flush;
    flush.wait = false;
    flush.allow_write_stall = true;
    (void)db_->Flush(flush, family);
  }

  // Events of one type are about the same size from tick to tick, the tick's batch and
  // the actuations' differ: each event's kind (tick_events.hpp's, or its Payload's
  // alternative) with the bytes its last one took.
  static std::size_t kind_of(const Event& e) {
    if (const auto* tick = std::get_if<TickEvent>(&e.payload)) return std::variant_size_v<Payload> + tick->index();
    return e.payload.index();
  }

  // The bytes the batch will hold, with a quarter to spare: each event as the last of
  // its kind was, the snapshots as they are.
  std::size_t expected_batch_bytes(const std::vector<Event>& events, const std::vector<Snapshot>& snapshots) const {
    double bytes = 64;
    for (const Event& e : events) bytes += kRecordOverheadBytes + bytes_by_kind_[kind_of(e)];
    bytes *= 1.25;
    for (const Snapshot& s : snapshots) bytes += kRecordOverheadBytes + s.scope.size() + 17 + s.bytes.size();
    return static_cast<std::size_t>(bytes);
  }

  // The time of the newest event, which the next append may not precede.
  std::optional<Error> load_last_time() {
    if (meta_.last_seq == 0) return std::nullopt;
    auto time = time_of(meta_.last_seq);
    if (!time) {
      // Retention may have removed every event; the sequence still goes on from last_seq.
      if (time.error().code == ErrorCode::kNoData) return std::nullopt;
      return time.error();
    }
    last_time_s_ = *time;
    return std::nullopt;
  }

  Result<double> time_of(std::uint64_t seq) const {
    std::string value;
    const rocksdb::Status s = db_->Get({}, events_family(), seq_key(seq), &value);
    if (s.IsNotFound()) return Error{ErrorCode::kNoData, dir_ + ": event " + std::to_string(seq) + " is missing"};
    if (!s.ok()) return storage_error(dir_ + ": reading event " + std::to_string(seq), s);
    auto header = decode_event_header(seq, value);
    if (!header) return header.error();
    return header->time_s;
  }

  Result<std::uint64_t> first_sequence() const {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, events_family()));
    it->SeekToFirst();
    if (!it->status().ok()) return storage_error(dir_ + ": finding the first event", it->status());
    if (!it->Valid()) return meta_.last_seq + 1;
    const auto seq = read_big_endian(view(it->key()));
    if (!seq) return store_error(dir_ + ": an events key is not 8 bytes");
    return *seq;
  }

  // The first seq in [lo, hi] whose event's time is >= time_s, or hi + 1: a bisection,
  // since times never decrease along the sequence. Events before the first stored one
  // (removed by retention) count as earlier than any time.
  Result<std::uint64_t> first_at_or_after(double time_s, std::uint64_t lo, std::uint64_t hi) const {
    auto first = first_sequence();
    if (!first) return first.error();
    lo = std::max(lo, *first);
    if (lo > hi) return hi + 1;
    std::uint64_t end = hi + 1;
    while (lo < end) {
      const std::uint64_t mid = lo + (end - lo) / 2;
      auto t = time_of(mid);
      if (!t) return t.error();
      if (*t >= time_s) {
        end = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  // The last seq that must go for the events after it to fit in max_bytes (keys and
  // values as stored, before compression), or 0 when all fit.
  Result<std::uint64_t> oldest_beyond_bytes(std::uint64_t max_bytes) const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes;  // seq, bytes
    std::uint64_t total = 0;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, events_family()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const auto seq = read_big_endian(view(it->key()));
      if (!seq) return store_error(dir_ + ": an events key is not 8 bytes");
      sizes.emplace_back(*seq, it->key().size() + it->value().size());
      total += sizes.back().second;
    }
    if (!it->status().ok()) return storage_error(dir_ + ": measuring events", it->status());
    std::uint64_t cut = 0;
    for (const auto& [seq, bytes] : sizes) {
      if (total <= max_bytes) break;
      total -= bytes;
      cut = seq;
    }
    return cut;
  }

  // Deletes into `batch` every snapshot at or before `cut` that a newer one of its scope
  // replaces.
  std::optional<Error> superseded_snapshots(const std::vector<Snapshot>& newest, std::uint64_t cut,
                                            rocksdb::WriteBatch& batch) const {
    std::map<std::string, std::uint64_t> newest_seq;
    for (const Snapshot& s : newest) newest_seq[s.scope] = s.seq;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, snapshots_family()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      auto snapshot = read_snapshot(dir_, view(it->key()), view(it->value()));
      if (!snapshot) return snapshot.error();
      if (snapshot->seq <= cut && snapshot->seq < newest_seq[snapshot->scope]) batch.Delete(snapshots_family(), it->key());
    }
    if (!it->status().ok()) return storage_error(dir_ + ": reading snapshots", it->status());
    return std::nullopt;
  }

  std::string dir_;
  rocksdb::DB* db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // default, events, snapshots, metadata
  bool read_only_;
  bool sync_;
  std::string secondary_dir_;  // a read-only opener's own info-log directory
  Metadata meta_;
  // The value bytes of the last event of each kind (kind_of), 1 KB before the first.
  std::array<double, std::variant_size_v<Payload> + std::variant_size_v<TickEvent>> bytes_by_kind_;
  rocksdb::WriteBatch batch_;  // kept between appends of kKeptBatchBytes or more
  std::vector<std::uint8_t> value_;
  double last_time_s_ = -HUGE_VAL;
};

// Sized for a daemon that writes a batch per tick and reads only at restart and for
// retention: RSS at 1,000 variants is a target (issue 21).
std::vector<rocksdb::ColumnFamilyDescriptor> families() {
  // One small block cache for every family (by default each family makes its own 8 MB
  // one, filled by a restart's read and then held).
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  rocksdb::ColumnFamilyOptions events;
  events.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // A 1,000-variant tick is about 1 MB of events, a 10,000-variant one about 10 MB: a
  // memtable holds a few ticks of the former and a batch larger than it is accepted
  // whole, then flushed.
  events.write_buffer_size = kEventsWriteBufferBytes;
  rocksdb::ColumnFamilyOptions small;
  small.table_factory = events.table_factory;
  small.write_buffer_size = kSmallWriteBufferBytes;
  return {{rocksdb::kDefaultColumnFamilyName, small},
          {kEventsFamily, events},
          {kSnapshotsFamily, small},
          {kMetadataFamily, small}};
}

// The writer's open table files (each holds its index in memory): a bounded cache
// rather than every file of a store that grows for days.
void daemon_sized(rocksdb::DBOptions& options) {
  options.max_open_files = 64;
  options.table_cache_numshardbits = 4;
}

// Whether `dir` holds a RocksDB database with the store's column families; an Error
// naming the directory when it holds something else.
Result<bool> existing_store(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / "CURRENT", ec)) return false;
  std::vector<std::string> names;
  const rocksdb::Status s = rocksdb::DB::ListColumnFamilies({}, dir, &names);
  if (!s.ok()) return storage_error(dir + ": listing column families", s);
  for (const char* family : {kEventsFamily, kSnapshotsFamily, kMetadataFamily}) {
    if (std::find(names.begin(), names.end(), family) == names.end()) {
      return store_error(dir + " is not a capstan event store (no '" + family + "' column family)");
    }
  }
  return true;
}

Result<std::unique_ptr<EventStore>> finish_open(std::unique_ptr<RocksEventStore> store, bool created,
                                                const StoreOptions& options) {
  if (auto error = store->load_metadata(created, options)) return *error;
  return std::unique_ptr<EventStore>(std::move(store));
}

}  // namespace

std::string snapshot_scope(const ModelKey& model) { return model.ns + "/" + model.model_id; }

Result<std::unique_ptr<EventStore>> EventStore::open(const std::string& dir, const StoreOptions& options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return store_error("cannot create the store directory " + dir + ": " + ec.message());
  auto existing = existing_store(dir);
  if (!existing) return existing.error();
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = !*existing;
  // After a kill, replay the log into memory and get going; the tables follow in the
  // background.
  db_options.avoid_flush_during_recovery = true;
  daemon_sized(db_options);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(db_options, dir, families(), &handles, &db);
  if (!s.ok()) return storage_error("cannot open the event store " + dir, s);
  auto store = std::make_unique<RocksEventStore>(dir, db, std::move(handles), false, options.sync, "");
  return finish_open(std::move(store), !*existing, options);
}

Result<std::unique_ptr<EventStore>> EventStore::open_read_only(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return store_error("no capstan event store at " + dir + ": no such directory");
  auto existing = existing_store(dir);
  if (!existing) return existing.error();
  if (!*existing) return store_error(dir + " is not a capstan event store (no RocksDB database in it)");
  // A secondary instance reads beside a live writer (a plain read-only open is undefined
  // then, rocksdb/db.h); it keeps its info log in a directory of its own.
  std::string secondary = (fs::temp_directory_path(ec) / "capstan-reader-XXXXXX").string();
  if (ec || ::mkdtemp(secondary.data()) == nullptr) {
    return store_error("cannot create a reader's directory for " + dir + " under " + fs::temp_directory_path(ec).string());
  }
  rocksdb::DBOptions db_options;
  db_options.max_open_files = -1;  // a secondary instance needs every file open (rocksdb/db.h)
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenAsSecondary(db_options, dir, secondary, families(), &handles, &db);
  if (!s.ok()) {
    fs::remove_all(secondary, ec);
    return storage_error("cannot open the event store " + dir + " for reading", s);
  }
  auto store = std::make_unique<RocksEventStore>(dir, db, std::move(handles), true, false, secondary);
  s = db->TryCatchUpWithPrimary();
  if (!s.ok()) return storage_error(dir + ": catching up with the writer", s);
  return finish_open(std::move(store), false, {});
}

Result<bool> EventStore::for_each(const EventFilter& filter, const std::function<bool(const Event&)>& visit) const {
  std::optional<Error> failure;
  auto ran = for_each_value(filter, [&](std::uint64_t seq, std::string_view value) {
    auto event = decode_event_value(seq, value);
    if (!event) {
      failure = event.error();
      return false;
    }
    return visit(*event);
  });
  if (failure) return *failure;
  return ran;
}

}  // namespace capstan::storage
