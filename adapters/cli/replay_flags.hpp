// The flags the `capstan replay` commands share, read into replay/'s values: the store
// (opened read-only, a RocksDB secondary beside a live daemon), a model, a point in time
// and a range. Every bad value is a UsageError naming its flag (exit 2).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "replay/replay_start.hpp"
#include "storage/event_store.hpp"

namespace capstan::cli {

// Opens DIR read-only; a missing directory or one that holds no store names --data.
std::unique_ptr<storage::EventStore> open_replay_store(const std::string& dir);

// "NAMESPACE/MODEL_ID" (the id may hold slashes of its own); nullopt for "".
std::optional<ModelKey> parse_model_flag(const std::string& flag, const std::string& text);

// A recorded time: seconds ("5400", "5400.5"), a duration of one unit ("90m", "1.5h"),
// or a UTC date-time ("2026-11-24T14:02:00Z", for a store a wall-clock daemon wrote).
double parse_time_flag(const std::string& flag, const std::string& text);

struct RangeFlags {
  std::optional<std::uint64_t> from_seq, to_seq;
  std::string from, to;  // times, as parse_time_flag reads them
};
replay::ReplayRange parse_range_flags(const RangeFlags& f);

// One of storage::known_event_types(); else a UsageError listing them.
void require_event_type(const std::string& flag, const std::string& type);

// A model the store has decisions for; else a UsageError naming the flag and the known ones.
void require_recorded_model(const storage::EventStore& store, const std::string& flag, const ModelKey& model);

}  // namespace capstan::cli
