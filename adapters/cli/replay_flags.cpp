#include "adapters/cli/replay_flags.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "adapters/cli/usage_error.hpp"
#include "config/value_text.hpp"
#include "replay/recorded_decisions.hpp"

namespace capstan::cli {

std::unique_ptr<storage::EventStore> open_replay_store(const std::string& dir) {
  auto store = storage::EventStore::open_read_only(dir);
  if (!store) throw UsageError("--data: " + store.error().message);
  return std::move(store).value();
}

std::optional<ModelKey> parse_model_flag(const std::string& flag, const std::string& text) {
  if (text.empty()) return std::nullopt;
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size())
    throw UsageError(flag + " must be NAMESPACE/MODEL_ID, got '" + text + "'");
  return ModelKey{text.substr(0, slash), text.substr(slash + 1)};
}

double parse_time_flag(const std::string& flag, const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) == 6 &&
      consumed == static_cast<int>(text.size())) {
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return static_cast<double>(timegm(&tm));
  }
  auto seconds = config::parse_duration(text);
  if (!seconds.ok() || !std::isfinite(seconds.value()))
    throw UsageError(flag + ": '" + text +
                     "' is not a time: seconds (5400), a duration (90m) or a UTC date-time (2026-11-24T14:02:00Z)");
  return seconds.value();
}

replay::ReplayRange parse_range_flags(const RangeFlags& f) {
  replay::ReplayRange r;
  if (f.from_seq) r.from_seq = *f.from_seq;
  if (f.to_seq) r.to_seq = *f.to_seq;
  if (r.from_seq > r.to_seq)
    throw UsageError("--from-seq " + std::to_string(r.from_seq) + " is after --to-seq " + std::to_string(r.to_seq));
  if (!f.from.empty()) r.from_time_s = parse_time_flag("--from", f.from);
  if (!f.to.empty()) r.to_time_s = parse_time_flag("--to", f.to);
  if (r.from_time_s && r.to_time_s && *r.from_time_s > *r.to_time_s)
    throw UsageError("--from " + f.from + " is after --to " + f.to);
  return r;
}

void require_event_type(const std::string& flag, const std::string& type) {
  const auto& known = storage::known_event_types();
  if (std::find(known.begin(), known.end(), type) != known.end()) return;
  std::string names;
  for (const std::string& t : known) names += (names.empty() ? "" : ", ") + t;
  throw UsageError(flag + ": '" + type + "' is not an event type; known: " + names);
}

void require_recorded_model(const storage::EventStore& store, const std::string& flag, const ModelKey& model) {
  auto models = replay::recorded_models(store);
  if (!models.ok()) throw UsageError("--data: " + models.error().message);
  std::string known;
  for (const ModelKey& m : models.value()) {
    if (m == model) return;
    known += (known.empty() ? "" : ", ") + replay::model_name(m);
  }
  throw UsageError(flag + ": no decisions recorded for '" + replay::model_name(model) + "'; recorded: " +
                   (known.empty() ? "none" : known));
}

}  // namespace capstan::cli
